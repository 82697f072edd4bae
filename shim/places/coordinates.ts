/**
 * Coordinates as people and models write them (docs/CONTRACT.md, Location): "lat,lng" in decimal degrees, or with
 * degree signs, hemisphere letters and minutes/seconds ("40.7128° N, 74.0060° W", "40.7128 N 74.0060 W",
 * "40°42'46\"N 74°0'22\"W"). Pure: whether the point is in the US is resolve.ts's question.
 */

/** Two numbers read as a point: decimal degrees, and the caller's own text of each when written as plain decimals. */
export interface Coordinates {
  lat: number;
  lng: number;
  /** The caller's digits ("40.7128", "-74.0060"), kept so a suggested fix repeats them exactly; absent for other notations. */
  text?: [string, string];
}

/** Coordinates that could not be read as a point, with why. */
export class CoordinatesError extends Error {}

const NUMBER = String.raw`[+-]?(?:\d+(?:\.\d*)?|\.\d+)`;
const PLAIN_RE = new RegExp(String.raw`^(${NUMBER})\s*(?:,|\s)\s*(${NUMBER})$`);
const DMS = String.raw`(${NUMBER})\s*(?:°|º|˚|deg(?:rees?)?\b)?\s*(?:(\d+(?:\.\d+)?)\s*['′’]\s*)?(?:(\d+(?:\.\d+)?)\s*(?:"|″|”|''|′′)\s*)?`;
/** One number with its hemisphere letter before it (groups: letter, number, minutes, seconds, nothing) or after it. */
const LETTER_FIRST = String.raw`([NSEW])\s*${DMS}()`;
const LETTER_AFTER = String.raw`()${DMS}([NSEW])?`;
const MARKED_RES = [LETTER_FIRST, LETTER_AFTER].map((p) => new RegExp(String.raw`^${p}\s*[,;]?\s*${p}$`, 'i'));
/** Text that is a point written with degree signs or hemisphere letters rather than a place name. */
const LOOKS_MARKED_RE = /^(?:[NSEW]\s*[+-]?[\d.]|[+-]?[\d.]+\s*(?:°|º|˚|['′"″]|[NSEW]\b))/i;

interface Part {
  value: number;
  /** 'lat' for N/S, 'lng' for E/W, null when unmarked. */
  axis: 'lat' | 'lng' | null;
}

function part(groups: (string | undefined)[], text: string): Part {
  const [pre, num, min, sec, post] = groups;
  const letter = (pre === '' || pre === undefined ? post : pre)?.toUpperCase() || undefined;
  const minutes = min === undefined ? 0 : Number(min);
  const seconds = sec === undefined ? 0 : Number(sec);
  if (minutes >= 60 || seconds >= 60)
    throw new CoordinatesError(`minutes and seconds must be below 60 in ${JSON.stringify(text)}`);
  const n = Number(num);
  const magnitude = Math.abs(n) + minutes / 60 + seconds / 3600;
  if (letter === undefined)
    return { value: Math.sign(n) < 0 || num?.startsWith('-') === true ? -magnitude : magnitude, axis: null };
  if (num?.startsWith('-') === true)
    throw new CoordinatesError(`${JSON.stringify(text)} has both a minus sign and a hemisphere letter on one number`);
  const negative = letter === 'S' || letter === 'W';
  return { value: negative ? -magnitude : magnitude, axis: letter === 'N' || letter === 'S' ? 'lat' : 'lng' };
}

/**
 * The point `text` writes, or null when it is not written as coordinates. Throws CoordinatesError when it is, but
 * inconsistently (two latitudes, a sign and a letter, minutes of 60 or more). Ranges are not checked here.
 */
export function readCoordinates(text: string): Coordinates | null {
  const plain = PLAIN_RE.exec(text);
  if (plain?.[1] !== undefined && plain[2] !== undefined) {
    return { lat: Number(plain[1]), lng: Number(plain[2]), text: [plain[1], plain[2]] };
  }
  if (!LOOKS_MARKED_RE.test(text)) return null;
  const m = MARKED_RES.map((re) => re.exec(text)).find((x) => x !== null);
  if (m === undefined) return null;
  const a = part(m.slice(1, 6), text);
  const b = part(m.slice(6, 11), text);
  if (a.axis !== null && a.axis === b.axis) {
    throw new CoordinatesError(
      `${JSON.stringify(text)} gives two ${a.axis === 'lat' ? 'latitudes (N/S)' : 'longitudes (E/W)'}; send one latitude and one longitude`,
    );
  }
  // Letters say which is which; without them, latitude comes first.
  const swapped = a.axis === 'lng' || b.axis === 'lat';
  return swapped ? { lat: b.value, lng: a.value } : { lat: a.value, lng: b.value };
}

/** A point as "lat,lng" text: the caller's own digits when kept, else the numbers. */
export function pointText(lat: string | number, lng: string | number): string {
  return `${String(lat)},${String(lng)}`;
}
