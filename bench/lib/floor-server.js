// Node's own floor for an identity request, for `npm run bench edge`: plain node:http and
// node:http2 servers (no framework, no model, no TypeScript) that read a request and answer with
// the bytes our server answers an identity infer with. Prints {"http":port,"grpc":port}; exits
// when stdin closes. Plain JavaScript so that nothing but Node itself is measured.
import { createServer } from 'node:http';
import { createServer as createH2Server } from 'node:http2';

const header = Buffer.from(JSON.stringify({
  model_name: 'echo', model_version: '1',
  outputs: [{ name: 'OUTPUT0', datatype: 'FP32', shape: [1, 16], parameters: { binary_data_size: 64 } }],
}));
const http = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const out = Buffer.concat([header, body.subarray(body.length - 64)]);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'inference-header-content-length': header.length, 'content-length': out.length });
    res.end(out);
  });
});
// A ModelInferResponse with model_name (field 1) and one 64-byte raw_output_contents (field 6), framed.
const message = Buffer.concat([Buffer.from([0x0a, 4]), Buffer.from('echo'), Buffer.from([0x32, 64]), Buffer.alloc(64)]);
const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, message.length]), message]);
const h2 = createH2Server();
h2.on('stream', (stream) => {
  stream.on('data', () => undefined);
  stream.on('end', () => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc+proto' }, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0', 'grpc-message': 'OK' }));
    stream.end(frame);
  });
});
http.listen(0, '127.0.0.1', () => h2.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ http: http.address().port, grpc: h2.address().port })}\n`);
}));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
