export const PERF_HELP = `Usage: tributary perf -m <model> [options]

Load-test a model on any KServe v2 server (Triton included), with perf_analyzer's method: for each
load level, measure windows until three in a row agree within --stability-percentage, then report
client throughput and latency and the server's own breakdown from the statistics extension (and,
for a Tributary pipeline, each step's).

Options:
  -m, --model-name <name>            model to load (required)
  -x, --model-version <v>            version (the server's policy picks one when absent)
  -u, --url <host:port>              server address (default localhost:8000, or :8001 with -i grpc)
  -i, --protocol http|grpc           protocol (default http)
  --concurrency-range <s[:e[:step]]> closed loop: concurrent requests (default 1)
  --request-rate-range <s[:e[:step]]> open loop: requests per second, sent on a fixed schedule
  -b, --batch-size <n>               rows per request (default 1; models with max_batch_size > 0)
  --shape <NAME:d1,d2,...>           dims of an input with variable dims (without the batch dim)
  --input-data random|zero|<file>    synthetic data, or perf_analyzer's JSON {"data": [...]}
  -p, --measurement-interval <ms>    window length (default 5000)
  -s, --stability-percentage <P>     windows agree within P% (default 10)
  -r, --max-trials <n>               windows per level before giving up on stability (default 10)
  --percentile <p>                   stabilise on and summarise with the p-th latency percentile
  -f, --latency-report-file <file>   write perf_analyzer's CSV
  --verbose-csv                      add Avg latency, request/response, response wait to the CSV
  --streaming                        stream (decoupled models; gRPC or HTTP)
  --sequence-length <n>              requests per sequence for sequence models (default 20)
  --shared-memory none|system        inputs and outputs in the messages (none, the default) or in
                                     POSIX shared memory under /dev/shm, registered with the server
                                     (system: the server must run on this host; cuda is refused)
  --output-shared-memory-size <b>    bytes of shared memory per output (default 102400)

--input-data <file> is perf_analyzer's JSON: {"data": [step, ...]}, the requests taking the steps
in turn, each step naming every input as a list of values (strings for BYTES), as {"content":
[...], "shape": [...]}, or as {"b64": "..."}. For a text input such as the built-in langid's TEXT
(BYTES, dims [1]), examples/pipelines/langid-perf-data.json holds:
  {"data": [{"TEXT": ["the quick fox ..."]}, {"TEXT": {"content": ["le chat ..."], "shape": [1]}}]}
  tributary perf -m langid --input-data examples/pipelines/langid-perf-data.json

Latencies are in microseconds. Client Send and Client Recv are 0 in the CSV: the client SDK does
not time them apart, so they are inside the latency and the network column.

Plain gRPC requests (a host:port URL, no --streaming, not a sequence model) go out on HTTP/2
directly, each data step's message encoded once; an answer's status is checked, its outputs are
not decoded. The SDK's gRPC client (grpc-js) costs about as much CPU per call as the server spends
answering it, and perf would measure it instead of the server. Metadata, statistics and
shared-memory calls go on connections of their own: the load's carry only inference requests.
`;
