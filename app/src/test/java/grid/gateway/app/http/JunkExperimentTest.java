package grid.gateway.app.http;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class JunkExperimentTest extends BehindAFreshGateway {
    @Test
    void experiment() throws Exception {
        String full = "!:OHHxTT.OPT/PxT\t\u007fGETP\n\t:T.Ex1\tHSE\u0000PT\r\n\r\n";
        for (String junk :
                new String[] {full, "!abc\r\n\r\n", "!a\u0000b\r\n\r\n", "!a\nb\r\n\r\n", "!", "x", "GET / HTTP/1.1\r\n"
                }) {
            for (int at : new int[] {10, 86, 200}) {
                CountDownLatch acted = new CountDownLatch(1);
                engine.script = e -> {
                    e.write(ScriptedUpstream.SSE_HEAD + UpstreamFaultsIntegrationTest.chunk("data: {\"n\":0}\n\n"));
                    acted.await(5, TimeUnit.SECONDS);
                    for (int i = 1; i < 10; i++) {
                        e.write(UpstreamFaultsIntegrationTest.chunk("data: {\"n\":" + i + "}\n\n"));
                        Thread.sleep(2);
                    }
                    e.write(UpstreamFaultsIntegrationTest.chunk("data: [DONE]\n\n") + "0\r\n\r\n");
                };
                try (Socket s = new Socket("127.0.0.1", gateway.server.port())) {
                    s.setSoTimeout(3000);
                    String body = "{\"model\":\"demo-model\",\"prompt\":\"x\",\"stream\":true}";
                    s.getOutputStream()
                            .write(
                                    ("POST /v1/completions HTTP/1.1\r\nHost: g\r\nContent-Type: application/json\r\nContent-Length: "
                                                    + body.length() + "\r\n\r\n" + body)
                                            .getBytes(StandardCharsets.ISO_8859_1));
                    byte[] first = s.getInputStream().readNBytes(at);
                    s.getOutputStream().write(junk.getBytes(StandardCharsets.ISO_8859_1));
                    acted.countDown();
                    StringBuilder got = new StringBuilder(new String(first, StandardCharsets.ISO_8859_1));
                    try {
                        int c;
                        while ((c = s.getInputStream().read()) >= 0) got.append((char) c);
                    } catch (Exception e) {
                        got.append("<<" + e + ">>");
                    }
                    String g = got.toString();
                    System.out.println("EXP junk=" + junk.length() + " " + junk.charAt(0)
                            + junk.charAt(Math.min(1, junk.length() - 1)) + " at=" + at + " whole="
                            + g.contains("[DONE]") + " tail="
                            + g.substring(Math.max(0, g.length() - 120))
                                    .replace("\r\n", "|")
                                    .replace("\n", "~"));
                }
                Thread.sleep(200);
            }
        }
        System.out.println("EXP lines "
                + String.join("", gateway.accessLog.raw())
                        .replace("\n", "~")
                        .replaceAll("\"time[^~]*?\"upstream_status", "")
                        .substring(0, 100));
    }
}
