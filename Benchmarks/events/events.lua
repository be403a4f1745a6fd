-- wrk script: POST a batch of 50 events per request, each request with a unique batch_id
-- (thread id + counter), keep-alive. The body template is read once (BODY_TEMPLATE, with @ID@
-- where the batch_id goes), so a request costs one string concatenation.
local template = os.getenv("BODY_TEMPLATE")
local path = os.getenv("EVENTS_PATH") or "/events"
local f = assert(io.open(template, "rb"))
local text = f:read("*a")
f:close()
local at = string.find(text, "@ID@", 1, true)
local prefix, suffix = string.sub(text, 1, at - 1), string.sub(text, at + 4)

local threads = {}
local counter = 0
local id_prefix = ""

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

-- `tid` is the global that setup() gave this thread's Lua state (not a local: a local would shadow it).
function init(args)
  id_prefix = "b" .. tostring(os.time()) .. "-" .. tostring(tid) .. "-"
end

function request()
  counter = counter + 1
  local body = prefix .. id_prefix .. counter .. suffix
  return wrk.format("POST", path, { ["Content-Type"] = "application/json" }, body)
end

function done(summary, latency, requests)
  local non2xx = summary.errors.status
  io.write(string.format("WRK requests=%d seconds=%.3f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, non2xx,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
