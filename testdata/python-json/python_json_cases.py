"""Writes cases.tsv: request bodies and what CPython 3.11's json.loads makes of them.

Each line: the body's bytes in hex, a tab, and the outcome in hex of its UTF-8: the repr of the value,
"JSONDecodeError: <msg> @<pos>", or "unparsable" for any other exception (UnicodeDecodeError, ValueError,
RecursionError). PythonJsonCasesTest (engine-sim) holds the simulator's JSON reader to every line,
PythonGrammarCasesTest (routing-core) the gateway's model of what an engine reads. Run with the Python of the
recorded vLLM (3.11):
    python3 testdata/python-json/python_json_cases.py > testdata/python-json/cases.tsv
"""
import json
import random
import sys

SEEDS = [
    '{"model":"tiny-llama","messages":[{"role":"user","content":"hi"}],"temperature":0.7,"max_tokens":16}',
    '{"a":[1,-2,3.5,1e2,-0,0.0001,1e-5,1e16,12345678901234567890],"b":{"c":null,"d":true,"e":false}}',
    '{"x":"\\u00e9\\ud83d\\ude00\\n\\t\\\\\\/\\"\\b\\f\\r","y":"caf\u00e9 \u4e2d"}',
    '[NaN, Infinity, -Infinity, 1e400, -1e400]',
    '{"k":"\\ud800","l":"\\udc00\\ud800x","m":"\\ud800\\u0041"}',
    '{"dup":1,"other":2,"dup":3}',
    ' \t\n\r{ "s" : [ ] , "o" : { } } \n',
    '"just a string"',
    '12',
]
TOKENS = ['{', '}', '[', ']', ':', ',', '"', '\\', '\\u', '\\ud800', '\\udc00', 'u', 'NaN', 'Infinity',
          '-Infinity', '-', '.', 'e', 'E', '+', '0', '1', '9', '1e400', 'null', 'nul', 'true', 'tru', ' ', '\n',
          '\t', '\x00', '\x1f', '\x7f', 'é', '\U0001F600', 'x', '"a"', '1.', '01', '-0']
ENCODINGS = ['utf-8', 'utf-8-sig', 'utf-16-le', 'utf-16-be', 'utf-16', 'utf-32-le', 'utf-32-be', 'utf-32']


def mutate(rng, text):
    for _ in range(rng.randint(0, 3)):
        at = rng.randint(0, len(text))
        op = rng.randint(0, 2)
        if op == 0:
            text = text[:at] + rng.choice(TOKENS) + text[at:]
        elif op == 1:
            text = text[:at] + text[at + rng.randint(1, 3):]
        else:
            text = text[:at] + rng.choice(TOKENS) + text[at + 1:]
    return text


def outcome(body):
    try:
        value = json.loads(body)
    except json.JSONDecodeError as e:
        return 'JSONDecodeError: %s @%d' % (e.msg, e.pos)
    except Exception:  # noqa: BLE001 - FastAPI answers every other failure alike
        return 'unparsable'
    text = repr(value)
    # A Java string cannot keep a high surrogate before a low one apart from the pair they make.
    if any('\ud800' <= a <= '\udbff' and '\udc00' <= b <= '\udfff' for a, b in zip(text, text[1:])):
        return None
    return text


def cases(rng):
    yield b''
    yield b'\xef\xbb\xbf\xef\xbb\xbf{}'
    yield b'{"x":"\xed\xa0\x80"}'
    yield b'{"x":"\xed\xa0"}'
    yield b'{"x":"\xc0\xaf"}'
    yield b'{"x":"\xf4\x90\x80\x80"}'
    yield b'\xff\xfe{\x00}'
    yield b'\xff\xfe{\x00}\x00'
    yield b'\x00\x00\x00{\x00\x11\x00\x00'
    yield b'{"x":' + b'1' * 4300 + b'}'
    yield b'{"x":-' + b'1' * 4301 + b'}'
    yield b'{"x":1.' + b'1' * 5000 + b'}'
    yield b'{}\x00'
    yield b'\x00{'
    yield b'{\x00'
    for seed in SEEDS:
        for encoding in ENCODINGS:
            yield seed.encode(encoding, 'surrogatepass')
    for _ in range(1500):
        text = mutate(rng, rng.choice(SEEDS))
        encoding = rng.choice(ENCODINGS) if rng.random() < 0.2 else 'utf-8'
        body = text.encode(encoding, 'surrogatepass')
        if rng.random() < 0.05 and body:
            cut = rng.randint(0, len(body) - 1)
            body = body[:cut] + body[cut + 1:]
        yield body


def main():
    rng = random.Random(19)
    seen = set()
    for body in cases(rng):
        if body in seen:
            continue
        seen.add(body)
        result = outcome(body)
        if result is not None:
            sys.stdout.write(body.hex() + '\t' + result.encode('utf-8').hex() + '\n')


main()
