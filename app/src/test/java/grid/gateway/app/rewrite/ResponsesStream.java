package grid.gateway.app.rewrite;

import static grid.gateway.app.rewrite.Fixtures.event;
import static grid.gateway.app.rewrite.Fixtures.json;

import java.util.ArrayList;
import java.util.List;

/** A vLLM Responses stream, event by event as vLLM writes it, and the events the tagger must make of it. */
final class ResponsesStream {
    private ResponsesStream() {}

    /** The events of a streamed answer with {@code deltas} text deltas; the deltas' text mentions resp_fake. */
    static List<String> events(int deltas) {
        String msg = "msg_9a8b7c6d5e4f4a3b";
        List<String> events = new ArrayList<>();
        events.add(event(
                "response.created",
                json("{'response':" + response("in_progress", "[]")
                        + ",'sequence_number':0,'type':'response.created'}")));
        events.add(event(
                "response.in_progress",
                json("{'response':" + response("in_progress", "[]")
                        + ",'sequence_number':1,'type':'response.in_progress'}")));
        events.add(event(
                "response.output_item.added",
                json("{'item':{'id':'" + msg
                        + "','content':[],'role':'assistant','status':'in_progress','type':'message'},'output_index':0,"
                        + "'sequence_number':2,'type':'response.output_item.added'}")));
        int seq = 3;
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < deltas; i++) {
            String delta =
                    i % 3 == 0 ? "see resp_fake " : i % 3 == 1 ? "\\\"id\\\":\\\"resp_fake\\\" " : "word" + i + " ";
            text.append(delta);
            events.add(event(
                    "response.output_text.delta",
                    json("{'content_index':0,'delta':'")
                            + delta
                            + json("','item_id':'" + msg + "','logprobs':[],'output_index':0,'sequence_number':" + seq++
                                    + ",'type':'response.output_text.delta'}")));
        }
        String item = json("{'id':'" + msg + "','content':[{'annotations':[],'text':'")
                + text
                + json(
                        "','type':'output_text','logprobs':null}],'role':'assistant','status':'completed','type':'message'}");
        events.add(event(
                "response.output_item.done",
                json("{'item':")
                        + item
                        + json(",'output_index':0,'sequence_number':" + seq++
                                + ",'type':'response.output_item.done'}")));
        events.add(event(
                "response.completed",
                json("{'response':")
                        + response("completed", "[" + item + "]")
                        + json(",'sequence_number':" + seq + ",'type':'response.completed'}")));
        return events;
    }

    /** What the tagger must hand on for {@code events}: the response objects' ids tagged, nothing else changed. */
    static List<String> tagged(List<String> events) {
        return events.stream()
                .map(e -> e.replace(Fixtures.RESP_ID, Fixtures.tagged(Fixtures.RESP_ID))
                        .replace(Fixtures.PREV_ID, Fixtures.tagged(Fixtures.PREV_ID))
                        .replace(Fixtures.CONV_ID, Fixtures.tagged(Fixtures.CONV_ID)))
                .toList();
    }

    private static String response(String status, String output) {
        return json("{'id':'" + Fixtures.RESP_ID
                        + "','created_at':1760000000,'model':'Qwen/Qwen3-8B','object':'response',"
                        + "'output':\u0002,'parallel_tool_calls':true,'previous_response_id':'" + Fixtures.PREV_ID
                        + "','status':'" + status + "','conversation':{'id':'" + Fixtures.CONV_ID + "'},"
                        + "'usage':null}")
                .replace("\u0002", output);
    }
}
