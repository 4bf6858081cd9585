/**
 * The simulator's slots, like an inference server's (llama-server --parallel): a request holds one
 * from its start until its response ends (or its client goes away); the rest wait in arrival order.
 */
import type http from 'node:http';
import type { ChatBody } from './simResponse';

export function slotQueue(slots: number, serve: (res: http.ServerResponse, body: ChatBody) => void): { enqueue(res: http.ServerResponse, body: ChatBody): void } {
  const waiting: { res: http.ServerResponse; body: ChatBody }[] = [];
  let busy = 0;
  const startWaiting = (): void => {
    while (busy < slots && waiting.length > 0) {
      const { res, body } = waiting.shift()!;
      if (res.destroyed || res.writableEnded) continue;
      busy++;
      res.once('close', () => {
        busy--;
        startWaiting();
      });
      serve(res, body);
    }
  };
  return {
    enqueue(res, body) {
      waiting.push({ res, body });
      startWaiting();
    },
  };
}
