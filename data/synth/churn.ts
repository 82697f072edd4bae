/** One week to the next: a few offices close, a few open, prominence drifts; surviving offices keep their place_id. */
import { addFirm, addOffice, HOURS_WEIGHTS, type Population } from './offices.ts';
import { normal, pickWeighted, type Rng } from './rng.ts';
import type { World } from './world.ts';

const SHARE_REMOVED = 0.02;
const SHARE_ADDED = 0.02;
/** Week-to-week standard deviation of log prominence. */
const DRIFT = 0.25;

/** Advances `pop` by one week in place. */
export function advanceWeek(rng: Rng, pop: Population, world: World): void {
  const before = pop.offices.length;
  const kept = pop.offices.filter(() => rng() >= SHARE_REMOVED);
  for (const office of kept) {
    office.logProm += DRIFT * normal(rng);
    const x = rng();
    if (x < 0.01) office.hours = rng() < 0.15 ? -1 : pickWeighted(rng, HOURS_WEIGHTS);
    else if (x < 0.015) office.claimed = true;
  }
  pop.offices = kept;
  const withWebsite = kept.filter((o) => pop.firms[o.firm]!.domain !== null);
  const added = Math.round(before * SHARE_ADDED);
  for (let i = 0; i < added; i++) {
    const x = rng();
    if (x < 0.15 && withWebsite.length > 0) {
      // A new branch of an existing firm, in the region of one of its offices.
      const sibling = withWebsite[Math.floor(rng() * withWebsite.length)]!;
      const region = world.zipRegion[sibling.zip]!;
      addOffice(rng, pop, world, sibling.firm, region >= 0 ? region : world.regionSampler.draw(rng));
    } else {
      const firm = addFirm(rng, pop, x >= 0.25, false);
      addOffice(rng, pop, world, firm, world.regionSampler.draw(rng));
    }
  }
}
