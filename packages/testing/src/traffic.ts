import type { RawRequest, RawResponse, Transport } from '@kplane/api';

/** Counts the requests of the in-process clients and the watch events they read. */
export class Traffic {
  started = 0;
  eventsRead = 0;
  readonly inFlight = new Map<number, string>();
  private seq = 0;

  wrap(transport: Transport, who: string): Transport {
    return async (req: RawRequest): Promise<RawResponse> => {
      const id = ++this.seq;
      this.started++;
      this.inFlight.set(id, `${who} ${req.method} ${req.path}${req.query?.watch === 'true' || req.query?.watch === '1' ? '?watch' : ''}`);
      try {
        const res = await transport(req);
        if (res.events) return { ...res, events: this.count(res.events) };
        return res.stream ? { ...res, stream: this.count(res.stream) } : res;
      } finally {
        this.inFlight.delete(id);
      }
    };
  }

  /** Passes on a watch's chunks (or batches of events), counting them. */
  private async *count<C>(stream: AsyncIterable<C>): AsyncGenerator<C> {
    for await (const chunk of stream) {
      this.eventsRead++;
      yield chunk;
    }
  }
}
