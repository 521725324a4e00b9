// Writes the request bodies of the side-by-side run into DIR:
//   chat-1k.json, chat-32k.json, chat-256k.json  valid Chat Completions requests of exactly 1, 32 and 256 KiB:
//                                                 a system prompt, then user/assistant turns of about 2 KiB of
//                                                 varied words (so the gateway keys many blocks, as for a real chat)
//   chat-stream.json                              a short streamed chat request for the SSE model
//   responses-create.json                         a Responses create, answered with a stored id to tag
//
//   node bodies.mjs DIR FIXED_MODEL STREAM_MODEL
import fs from 'node:fs';
import path from 'node:path';

const [dir, fixedModel, streamModel] = process.argv.slice(2);
fs.mkdirSync(dir, { recursive: true });

const words = ('alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa '
  + 'quebec romeo sierra tango uniform victor whiskey xray yankee zulu gateway cluster replica prefix').split(' ');

// Deterministic filler: the same bytes on every run and every machine.
function text(length, seed) {
  let out = '';
  let state = seed;
  while (out.length < length) {
    state = (state * 1103515245 + 12345) % 2147483648;
    out += words[state % words.length] + ' ';
  }
  return out.slice(0, length);
}

function chat(size) {
  const messages = [{ role: 'system', content: 'You are a helpful assistant for load tests.' }];
  const request = { model: fixedModel, max_tokens: 16, messages };
  // Whole turns while they fit beside a final user message, which is then padded to the exact size.
  const closing = { role: 'user', content: '' };
  for (let turn = 0; ; turn++) {
    messages.push({ role: turn % 2 === 0 ? 'user' : 'assistant', content: text(2048, turn + 1) }, closing);
    const fits = Buffer.byteLength(JSON.stringify(request)) <= size;
    messages.pop();
    if (!fits) {
      messages.pop();
      break;
    }
  }
  messages.push(closing);
  const last = messages.at(-1);
  const missing = size - Buffer.byteLength(JSON.stringify(request));
  last.content += text(missing, 999);
  const json = JSON.stringify(request);
  if (Buffer.byteLength(json) !== size) throw new Error(`body of ${size} came out ${Buffer.byteLength(json)}`);
  return json;
}

for (const [name, size] of [['chat-1k', 1024], ['chat-32k', 32768], ['chat-256k', 262144]]) {
  fs.writeFileSync(path.join(dir, `${name}.json`), chat(size));
}
fs.writeFileSync(path.join(dir, 'chat-stream.json'), JSON.stringify({
  model: streamModel,
  stream: true,
  messages: [{ role: 'user', content: 'Tell me about the gateway cluster replica prefix in fifty tokens.' }],
}));
fs.writeFileSync(path.join(dir, 'responses-create.json'), JSON.stringify({ model: fixedModel, input: 'hi' }));
