import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './ports.js';

export type SwitchMode = 'forward' | 'refuse' | 'hang' | 'close';

/**
 * A backing service (PostgreSQL, Redis) as a process sees it, switchable on a loopback port of its
 * own: `forward` to the real server at `target`, `refuse` (nothing listens: ECONNREFUSED), `hang`
 * (connections accepted and never answered: a server stuck in its start, a black-holed route) or
 * `close` (each connection accepted and closed at once). Every switch drops the connections open
 * through it, as a restart of the server would.
 */
export async function tcpSwitch(target: { host: string; port: number }) {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let mode: Exclude<SwitchMode, 'refuse'> = 'forward';
  const server: Server = createServer((inbound) => {
    sockets.add(inbound);
    inbound.on('error', () => undefined).on('close', () => sockets.delete(inbound));
    if (mode === 'close') inbound.destroy();
    if (mode !== 'forward') return;
    const outbound = connect(target.port, target.host);
    sockets.add(outbound);
    outbound.on('error', () => inbound.destroy()).on('close', () => sockets.delete(outbound));
    inbound.on('close', () => outbound.destroy());
    inbound.pipe(outbound).pipe(inbound);
  });
  let listening = false;
  const listen = async () => {
    if (!listening) await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    listening = true;
  };
  const dropAll = () => {
    for (const s of sockets) s.destroy();
  };
  await listen();
  return {
    port,
    async set(next: SwitchMode) {
      dropAll();
      if (next === 'refuse') {
        if (listening) await new Promise((r) => server.close(r));
        listening = false;
        return;
      }
      mode = next;
      await listen();
    },
    async close() {
      dropAll();
      if (listening) await new Promise((r) => server.close(r));
      listening = false;
    },
  };
}

/** `url` with its host and port replaced by the switch's. */
export function throughSwitch(url: string, sw: { port: number }): string {
  const u = new URL(url);
  u.host = `127.0.0.1:${sw.port}`;
  return u.toString();
}
