/** The synthetic population: firms (grouped by website domain) and their offices, before they become place records. */
import { metroAreaCodes, STATE_AREA_CODES } from './regions.ts';
import { firmName, slugify, streetAddress } from './names.ts';
import { normal, pick, pickWeighted, randInt, type Rng } from './rng.ts';
import type { World } from './world.ts';

/** A firm: one website domain (or none: then it has exactly one office), flags and shared traits of its offices. */
export interface Firm {
  name: string;
  /** Host of the firm's site without "www.", or null for a single office without a website. */
  domain: string | null;
  enhanced: boolean;
  sponsored: boolean;
  www: boolean;
  /** 0 plain root, 1 per-location paths, 2 tracking query string. */
  urlStyle: number;
  cityInName: boolean;
  /** Firm-wide prominence added to each office's (brand strength). */
  brand: number;
  /** Offices ever opened by the firm (a firm that ever had several names its offices by city). */
  opened: number;
}

/** One office: everything its place record needs, plus its prominence on the web map. */
export interface Office {
  /** Stable serial number across weeks (seeds per-office noise). */
  uid: number;
  placeId: string;
  firm: number;
  zip: number;
  lat: number;
  lng: number;
  street: string;
  phone: string | null;
  /** Index into HOURS_TEMPLATES, -1 for no hours. */
  hours: number;
  claimed: boolean;
  category: number;
  /** Natural log of prominence on the web map (log-normal across offices). */
  logProm: number;
}

/** Everything generated so far; churn appends firms and replaces offices. */
export interface Population {
  firms: Firm[];
  offices: Office[];
  /** Firms so far per domain base; names have no digits, so `<base>-<n>` never collides with another base. */
  domainCount: Map<string, number>;
  nextUid: number;
}

/** primary_category values in the proportions drawn. */
export const CATEGORIES = ['Personal injury attorney', 'Law firm', 'Lawyer', 'Attorney'] as const;
const CATEGORY_WEIGHTS = [80, 9, 7, 4];

const SHARE_NO_WEBSITE = 0.08;
const SHARE_NO_PHONE = 0.05;
const SHARE_NO_HOURS = 0.15;
/** One large firm (20-60 offices) per this many offices. */
const OFFICES_PER_LARGE_FIRM = 760;
/** Chance a firm with a website has 2-10 offices; tuned so 9,080 offices make about 6,645 firms. */
const SHARE_MULTI = 0.135;
const MULTI_SIZE_WEIGHTS = [0, 0, 40, 22, 13, 9, 6, 4, 3, 2, 1]; // index = number of offices
/** Number of hours templates (see place-record.ts), and how often each is drawn. */
export const HOURS_WEIGHTS = [30, 12, 10, 10, 4, 5, 4, 6, 5, 3, 3, 2];

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** An empty population. */
export function emptyPopulation(): Population {
  return { firms: [], offices: [], domainCount: new Map(), nextUid: 0 };
}

/** "ChIJ" + 23 base64url characters: 138 random bits, so ids of a million offices collide with odds below 1e-29. */
function newPlaceId(rng: Rng): string {
  let id = 'ChIJ';
  for (let i = 0; i < 23; i++) id += B64URL[Math.floor(rng() * 64)];
  return id;
}

/** Adds a firm; `withWebsite` false makes a single office's own firm. Returns its index. */
export function addFirm(rng: Rng, pop: Population, withWebsite: boolean, large: boolean): number {
  const name = firmName(rng);
  let domain: string | null = null;
  if (withWebsite) {
    const base = slugify(name.replace(/,? P\.C\.$/, ''))
      .slice(0, 50)
      .replace(/-+$/, '');
    const n = (pop.domainCount.get(base) ?? 0) + 1;
    pop.domainCount.set(base, n);
    domain = n === 1 ? `${base}.example` : `${base}-${n}.example`;
  }
  const x = rng();
  pop.firms.push({
    name,
    domain,
    enhanced: rng() < 0.03,
    sponsored: rng() < 0.02,
    www: rng() < 0.3,
    urlStyle: x < 0.65 ? 0 : x < 0.9 ? 1 : 2,
    cityInName: rng() < 0.3,
    brand: 0.4 * normal(rng) + (large ? 0.8 : 0),
    opened: 0,
  });
  return pop.firms.length - 1;
}

/** Adds one office of firm `firm` at a ZIP drawn from region `region` (avoiding `usedZips` when possible). */
export function addOffice(
  rng: Rng,
  pop: Population,
  world: World,
  firm: number,
  region: number,
  usedZips?: Set<number>,
): Office {
  const r = world.regions[region]!;
  let zip = r.zips[r.sampler.draw(rng)]!;
  for (let tries = 0; usedZips?.has(zip) && tries < 5; tries++) zip = r.zips[r.sampler.draw(rng)]!;
  usedZips?.add(zip);
  const z = world.zips[zip]!;
  // Jitter within 0.4 miles of the centroid: close enough to stay on land in the same ZIP.
  const dist = 0.4 * Math.sqrt(rng());
  const bearing = 2 * Math.PI * rng();
  const lat = Math.round((z.lat + (dist * Math.cos(bearing)) / 69) * 1e6) / 1e6;
  const lng = Math.round((z.lng + (dist * Math.sin(bearing)) / (69 * Math.cos((z.lat * Math.PI) / 180))) * 1e6) / 1e6;
  const metro = world.zipMetro[zip]!;
  const codes = metro >= 0 ? metroAreaCodes(world.metros[metro]!.slug, z.state) : [STATE_AREA_CODES[z.state] ?? '555'];
  const phone =
    rng() < SHARE_NO_PHONE ? null : `(${pick(rng, codes)}) 555-01${String(randInt(rng, 0, 99)).padStart(2, '0')}`;
  const hours = rng() < SHARE_NO_HOURS ? -1 : pickWeighted(rng, HOURS_WEIGHTS);
  const c = rng();
  const claimed = c < 0.7;
  const f = pop.firms[firm]!;
  f.opened++;
  const office: Office = {
    uid: pop.nextUid++,
    placeId: newPlaceId(rng),
    firm,
    zip,
    lat,
    lng,
    street: streetAddress(rng),
    phone,
    hours,
    claimed,
    category: pickWeighted(rng, CATEGORY_WEIGHTS),
    logProm: normal(rng) + f.brand + (claimed ? 0.2 : -0.2) + (f.domain ? 0 : -0.5),
  };
  pop.offices.push(office);
  return office;
}

function multiSize(rng: Rng): number {
  return pickWeighted(rng, MULTI_SIZE_WEIGHTS);
}

/** Generates about `target` offices (exactly `target`) in firms of realistic sizes. */
export function generatePopulation(rng: Rng, world: World, target: number): Population {
  const pop = emptyPopulation();
  // Plan firm sizes first (0 = an office without a website), then shuffle so big firms are spread through the file.
  const plan: number[] = [];
  let left = target;
  const noWebsite = Math.round(target * SHARE_NO_WEBSITE);
  for (let i = 0; i < noWebsite; i++) plan.push(0);
  left -= noWebsite;
  const large = target >= 200 ? Math.max(1, Math.round(target / OFFICES_PER_LARGE_FIRM)) : 0;
  for (let i = 0; i < large && left > 0; i++) {
    const size = Math.min(left, randInt(rng, 20, 60));
    plan.push(size);
    left -= size;
  }
  while (left > 0) {
    const size = Math.min(left, rng() < SHARE_MULTI ? multiSize(rng) : 1);
    plan.push(size);
    left -= size;
  }
  for (let i = plan.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [plan[i], plan[j]] = [plan[j]!, plan[i]!];
  }
  for (const size of plan) {
    const firm = addFirm(rng, pop, size > 0, size >= 20);
    const home = world.regionSampler.draw(rng);
    // Most firms stay in one metro; large ones spread over several.
    const stayHome = size >= 20 ? 0.45 : 0.9;
    const used = new Set<number>();
    for (let i = 0; i < Math.max(1, size); i++) {
      const region = i === 0 || rng() < stayHome ? home : world.regionSampler.draw(rng);
      addOffice(rng, pop, world, firm, region, used);
    }
  }
  return pop;
}
