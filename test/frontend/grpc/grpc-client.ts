/** A grpc-js client built from the project's .proto files, with promise helpers for tests. */
import { credentials, loadPackageDefinition, type Client, type ServiceError } from '@grpc/grpc-js';
import { loadProtos } from '../../../src/frontend/grpc/load-protos.js';

type Unary = (req: unknown, cb: (err: ServiceError | null, res: any) => void) => void;

export interface TestClient {
  inference: Client & Record<string, any>;
  health: Client & Record<string, any>;
  call<T = any>(method: string, req?: unknown): Promise<T>;
  close(): void;
}

export function createTestClient(port: number, options: Record<string, unknown> = {}): TestClient {
  const pkg = loadPackageDefinition(loadProtos()) as any;
  const addr = `127.0.0.1:${port}`;
  const opts = { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1, ...options };
  const inference = new pkg.inference.GRPCInferenceService(addr, credentials.createInsecure(), opts);
  const health = new pkg.grpc.health.v1.Health(addr, credentials.createInsecure(), opts);
  return {
    inference,
    health,
    call(method, req = {}) {
      const [target, name] = method.startsWith('Health.') ? [health, method.slice(7)] : [inference, method];
      return new Promise((resolve, reject) => {
        (target[name] as Unary).call(target, req, (err, res) => (err ? reject(err) : resolve(res)));
      });
    },
    close() {
      inference.close();
      health.close();
    },
  };
}
