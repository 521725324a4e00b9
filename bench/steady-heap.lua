-- wrk script of bench/steady-heap.sh: Chat Completions requests at a steady pace, half of them new prompts (the
-- prefix memory fills to capacity and keeps turning over) and half of them one of a few repeated conversations
-- (hits). Every prompt starts with one of 8 shared system prompts, so new prompts share their leading blocks too.
-- One request in four streams. Argument: the pause in ms each connection takes after an answer (wrk's delay()).

local thread_count = 0
local pause_ms = 0
local counter = 0
local systems = {}
local repeated = {}

function setup(thread)
    thread:set("tid", thread_count)
    thread_count = thread_count + 1
end

local function filler(seed, bytes)
    local words = {}
    local size = 0
    local i = 0
    while size < bytes do
        local word = "w" .. ((seed * 7919 + i * 104729) % 100003)
        words[#words + 1] = word
        size = size + #word + 1
        i = i + 1
    end
    return table.concat(words, " ")
end

function init(args)
    pause_ms = tonumber(args[1]) or 0
    for s = 1, 8 do
        systems[s] = "You are assistant " .. s .. ". Rules: " .. filler(s, 1024)
    end
    for r = 1, 32 do
        repeated[r] = "Question " .. r .. ": " .. filler(1000 + r, 1536)
    end
end

function delay()
    return pause_ms
end

function request()
    counter = counter + 1
    local system = systems[(counter % 8) + 1]
    local user
    if counter % 2 == 0 then
        -- Unique from its first byte, so every one of its blocks is a new key.
        user = "Thread " .. tid .. " request " .. counter .. ": " .. filler(counter * 31 + tid, 2048)
    else
        user = repeated[(math.floor(counter / 2) % 32) + 1]
    end
    local stream = (counter % 4 == 1) and "true" or "false"
    local body = '{"model":"bench-model","max_tokens":8,"stream":' .. stream .. ',"messages":['
        .. '{"role":"system","content":"' .. system .. '"},'
        .. '{"role":"user","content":"' .. user .. '"}]}'
    return wrk.format("POST", "/v1/chat/completions", { ["Content-Type"] = "application/json" }, body)
end
