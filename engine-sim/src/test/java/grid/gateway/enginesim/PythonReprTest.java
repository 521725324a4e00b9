package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PythonReprTest {
    @Test
    void jsonValues_areWrittenAsPythonWritesWhatJsonLoadsMakesOfThem() {
        String json = "{\"model\":\"tiny-llama\",\"n\":1,\"t\":0.5,\"w\":2.0,\"ok\":true,\"no\":false,"
                + "\"none\":null,\"list\":[1,\"it's\"],\"q\":\"say \\\"x\\\"\\n\"}";

        assertThat(PythonRepr.of(SimHttp.json(json)))
                .isEqualTo("{'model': 'tiny-llama', 'n': 1, 't': 0.5, 'w': 2.0, 'ok': True, 'no': False,"
                        + " 'none': None, 'list': [1, \"it's\"], 'q': 'say \"x\"\\n'}");
    }
}
