// The third generator's seeded pseudo-random numbers: every random choice is drawn from here, never
// from Math.random, so one seed gives one set of files. The stream itself is the second generator's
// (sfc32 seeded by a cyrb128 hash of a string key): numbers carry no design, and the generators stay
// apart in everything they draw with them. `fork(label)` opens an independent stream named by its
// label, so a change in what one part draws does not shift what another part draws.
import { Rng as Stream } from '../second-generator/random.js';

export class Rng extends Stream {
  constructor(key: string | number) {
    super(String(key));
  }

  override fork(label: string): Rng {
    return new Rng(`${this.seed}/${label}`);
  }

  /** A standard normal deviate. */
  normal(): number {
    return this.gauss();
  }

  /** `count` random decimal digits as a string. */
  digits(count: number): string {
    let s = '';
    for (let i = 0; i < count; i++) s += String(this.int(0, 9));
    return s;
  }
}
