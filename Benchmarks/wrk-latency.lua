-- wrk script (Benchmarks/run.sh latency pass): one machine-readable line with req/s and the
-- p50/p99/p99.9 latency in microseconds (the shared harness's report.lua stops at p99).
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("LAT rps=%.0f p50_us=%d p99_us=%d p999_us=%d max_us=%d errors=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50), latency:percentile(99),
    latency:percentile(99.9), latency.max, e.connect + e.read + e.write + e.status + e.timeout))
end
