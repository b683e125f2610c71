/**
 * The consumer's side of a response stream, as a producer sees it. A front end's stream writer
 * puts one on the requests it starts; a producer that can wait (a script's `await sender.send()`,
 * a pipeline's decoupled step, a gRPC stream that stops reading requests) holds back while it is
 * not ready, so a client that reads slowly, or not at all, holds the producer instead of the
 * server's memory. Producers that cannot wait send on: the writer bounds what it keeps (see
 * src/frontend/stream/).
 */
export interface ResponseDemand {
  /** False while the consumer holds as much as it wants to: a producer that can pause should. */
  readonly ready: boolean;
  /**
   * Calls `wake` once, when the consumer can take more again or has gone away (then `ready` stays
   * false and the request's signal tells why). Returns a function that forgets `wake`.
   */
  whenReady(wake: () => void): () => void;
}
