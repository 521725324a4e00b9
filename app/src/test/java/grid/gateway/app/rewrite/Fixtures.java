package grid.gateway.app.rewrite;

import grid.gateway.routing.tag.IdKind;
import grid.gateway.routing.tag.TagCodec;
import grid.gateway.routing.tag.TagParse;
import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;

/** Realistic vLLM Responses answers and the tag functions the tests bind, as the handler will. */
final class Fixtures {
    static final TagCodec CODEC = new TagCodec();

    /** Tags an engine id as stored at site east, cluster east-a (digest 1ef772aa), without a key. */
    static final UnaryOperator<String> TAG =
            id -> CODEC.format(IdKind.of(id).orElseThrow(IllegalArgumentException::new), "east", "1ef772aa", "", id);

    /** Tags as {@link #TAG} does, and an id no tag carries as the gateway does: the tag's head, then the id's rest. */
    static final UnaryOperator<String> TAG_ANY =
            id -> CODEC.formatAny(IdKind.of(id).orElseThrow(IllegalArgumentException::new), "east", "1ef772aa", "", id);

    /** Strips a tag back to the engine id; leaves anything else as it is. */
    static final UnaryOperator<String> STRIP = id ->
            CODEC.parse(id) instanceof TagParse.Tagged tagged ? tagged.id().engineId() : id;

    static final String RESP_ID = "resp_6f1c2b9e0d4a4c8f9b3e2a1d0c9b8a7f";
    static final String PREV_ID = "resp_0a1b2c3d4e5f40718293a4b5c6d7e8f9";
    static final String CONV_ID = "conv_68ac2f0d1e2b";

    /** A vLLM {@code Response}: reasoning, message and function-call items; model text that mentions ids. */
    static final String RESPONSE = json("""
            {'id':'%s','created_at':1760000000,'incomplete_details':null,'instructions':null,'metadata':null,\
            'model':'Qwen/Qwen3-8B','object':'response','output':[\
            {'id':'rs_4b2a8c1e9f0d4e7a','summary':[],'type':'reasoning','content':[\
            {'text':'The user asks about resp_fake.','type':'reasoning_text'}],'encrypted_content':null,'status':null},\
            {'id':'msg_9a8b7c6d5e4f4a3b','content':[{'annotations':[],\
            'text':'Your id was resp_fake and \\'id\\': \\'resp_quoted\\' is only text.',\
            'type':'output_text','logprobs':null}],'role':'assistant','status':'completed','type':'message'},\
            {'arguments':'{\\'id\\':\\'resp_in_args\\'}','call_id':'chatcmpl-tool-1a2b3c','name':'lookup',\
            'type':'function_call','id':'fc_0f1e2d3c4b5a','status':'completed'}],\
            'parallel_tool_calls':true,'temperature':0.7,'tool_choice':'auto','tools':[],'top_p':1.0,\
            'background':false,'max_output_tokens':1024,'previous_response_id':'%s','status':'completed',\
            'usage':{'input_tokens':42,'input_tokens_details':{'cached_tokens':16},'output_tokens':64,\
            'output_tokens_details':{'reasoning_tokens':12},'total_tokens':106},'user':null,\
            'conversation':{'id':'%s'}}""").formatted(RESP_ID, PREV_ID, CONV_ID);

    private Fixtures() {}

    /** JSON written with single quotes for readability: every ' becomes ". */
    static String json(String singleQuoted) {
        return singleQuoted.replace('\'', '"');
    }

    /** The tag {@link #TAG} makes of {@code engineId}. */
    static String tagged(String engineId) {
        return TAG.apply(engineId);
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** A vLLM Responses stream event, exactly as vLLM frames it. */
    static String event(String type, String data) {
        return "event: " + type + "\ndata: " + data + "\n\n";
    }
}
