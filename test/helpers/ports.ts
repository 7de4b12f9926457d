import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Whether a listener can bind `port` on loopback right now (it is closed again at once). */
function listenOn(port: number): Promise<number | null> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(null));
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => done(bound));
    });
  });
}

/** The low end of Linux's ephemeral range (where listen(0) and every outgoing connection take ports). */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

/**
 * A loopback port nothing listens on right now, for a child process to listen on. Drawn below the
 * ephemeral range: a port the system picked for a listener on port 0 is one outgoing connections take
 * too, and the test processes beside make many (PostgreSQL, Temporal, HTTP); closed and handed to a
 * child, one was taken before the child bound it (`metrics`' worker: "Address already in use", D371).
 * The system's pick only where no port below the range is free.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let i = 0; i < 50 && low > 10_000; i++) {
    const port = await listenOn(10_000 + Math.floor(Math.random() * (low - 10_000)));
    if (port !== null) return port;
  }
  return (await listenOn(0))!;
}
