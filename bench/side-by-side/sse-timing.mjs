// Times streamed answers per request: time to the first server-sent event, and the gap between events.
//
//   node sse-timing.mjs URL BODY_FILE REQUESTS CONCURRENCY [HEADERS_JSON]
//
// Sends REQUESTS POSTs of BODY_FILE to URL, CONCURRENCY at a time over keep-alive connections (Node's own http
// module, no dependencies), and prints one JSON line:
//   {"requests":N,"failed":F,"events_per_answer":E,"first_event_ms":{"p50":…,"p99":…},"gap_ms":{"p50":…,"p99":…}}
// first_event is from just before the request is written to the arrival of the first complete `data:` event;
// gap is between consecutive `data:` events of one answer, except the gap before a final `data: [DONE]` (the
// engine sends it right after the last token, so it would only measure the writer, not the pacing).
import fs from 'node:fs';
import http from 'node:http';

const [url, bodyFile, requestsArg, concurrencyArg, headersArg] = process.argv.slice(2);
if (!url || !bodyFile) {
  console.error('usage: node sse-timing.mjs URL BODY_FILE REQUESTS CONCURRENCY [HEADERS_JSON]');
  process.exit(2);
}
const body = fs.readFileSync(bodyFile);
const total = Number(requestsArg || 100);
const concurrency = Number(concurrencyArg || 8);
const extra = headersArg ? JSON.parse(headersArg) : {};
const target = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

const firsts = [];
const gaps = [];
const eventCounts = [];
let failed = 0;
let started = 0;

function one() {
  return new Promise((resolve) => {
    const times = [];
    let done = false;
    let lastIsDone = false;
    let pending = '';
    const t0 = process.hrtime.bigint();
    const req = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          authorization: 'Bearer sk-bench',
          accept: 'text/event-stream',
          ...extra,
        },
      },
      (res) => {
        if (res.statusCode !== 200) {
          failed++;
          res.resume();
          res.on('end', () => resolve());
          return;
        }
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          const now = process.hrtime.bigint();
          pending += chunk;
          let end;
          while ((end = pending.indexOf('\n\n')) >= 0) {
            const event = pending.slice(0, end);
            pending = pending.slice(end + 2);
            const data = event.split('\n').find((line) => line.startsWith('data:'));
            if (data !== undefined) {
              times.push(now);
              lastIsDone = data.trim() === 'data: [DONE]';
            }
          }
        });
        res.on('end', () => {
          if (times.length === 0) {
            failed++;
          } else {
            firsts.push(Number(times[0] - t0) / 1e6);
            const paced = lastIsDone ? times.length - 1 : times.length;
            for (let i = 1; i < paced; i++) gaps.push(Number(times[i] - times[i - 1]) / 1e6);
            eventCounts.push(times.length);
          }
          done = true;
          resolve();
        });
      },
    );
    req.on('error', () => {
      if (!done) failed++;
      resolve();
    });
    req.end(body);
  });
}

async function worker() {
  while (started < total) {
    started++;
    await one();
  }
}

function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[Math.max(0, index)] * 1000) / 1000;
}

await Promise.all(Array.from({ length: concurrency }, worker));
agent.destroy();
console.log(
  JSON.stringify({
    requests: firsts.length,
    failed,
    events_per_answer: eventCounts.length ? Math.min(...eventCounts) : 0,
    first_event_ms: { p50: percentile(firsts, 50), p99: percentile(firsts, 99) },
    gap_ms: { p50: percentile(gaps, 50), p99: percentile(gaps, 99) },
  }),
);
