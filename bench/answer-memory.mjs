// The client side of bench/answer-memory.sh (Node, no dependencies).
//
//   node bench/answer-memory.mjs latency URL REQUESTS CONNECTIONS
//       GETs URL REQUESTS times over CONNECTIONS kept-alive connections (after REQUESTS / 4 of warm-up), each
//       timed from the request to the last byte of its body; prints one line: n, p50, p99 and mean in ms, and the
//       body length.
//   node bench/answer-memory.mjs stall URL CLIENTS
//       opens CLIENTS connections, sends each a GET of URL, reads the first bytes of its answer and then nothing:
//       prints "stalled CLIENTS" once every answer has begun, and holds the connections until it is killed.
import http from 'node:http';
import net from 'node:net';

const [mode, url, ...rest] = process.argv.slice(2);
const target = new URL(url);

function get(agent) {
    return new Promise((resolve, reject) => {
        const start = process.hrtime.bigint();
        const request = http.get(target, { agent }, (response) => {
            let length = 0;
            response.on('data', (chunk) => { length += chunk.length; });
            response.on('end', () => {
                if (response.statusCode !== 200) {
                    reject(new Error(`status ${response.statusCode}`));
                    return;
                }
                resolve({ ms: Number(process.hrtime.bigint() - start) / 1e6, length });
            });
            response.on('error', reject);
        });
        request.on('error', reject);
    });
}

async function latency(requests, connections) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
    const run = async (count) => {
        const times = [];
        let next = 0;
        let length = 0;
        const worker = async () => {
            while (next < count) {
                next++;
                const answer = await get(agent);
                times.push(answer.ms);
                length = answer.length;
            }
        };
        await Promise.all(Array.from({ length: connections }, worker));
        return { times, length };
    };
    await run(Math.max(1, Math.floor(requests / 4)));
    const { times, length } = await run(requests);
    times.sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    console.log(`n=${times.length} connections=${connections} p50=${at(0.5).toFixed(2)}ms `
        + `p99=${at(0.99).toFixed(2)}ms mean=${mean.toFixed(2)}ms body=${length}B`);
    agent.destroy();
}

function stall(clients) {
    let begun = 0;
    for (let i = 0; i < clients; i++) {
        const socket = net.connect({ host: target.hostname, port: Number(target.port) }, () => {
            socket.write(`GET ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\n\r\n`);
        });
        socket.once('data', () => {
            socket.pause(); // nothing more is read: the kernel's buffers fill, then the gateway's writes block
            begun++;
            if (begun === clients) {
                console.log(`stalled ${clients}`);
            }
        });
        socket.on('error', () => {});
    }
    setInterval(() => {}, 1 << 30);
}

if (mode === 'latency') {
    await latency(Number(rest[0] ?? 200), Number(rest[1] ?? 1));
} else if (mode === 'stall') {
    stall(Number(rest[0] ?? 8));
} else {
    console.error('usage: answer-memory.mjs latency URL REQUESTS CONNECTIONS | stall URL CLIENTS');
    process.exit(2);
}
