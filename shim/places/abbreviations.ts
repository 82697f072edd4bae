/**
 * The abbreviations an address line writes a place's name with ("N. Las Vegas", "Arlington Hts", "Colorado Spgs"),
 * spelled out, so the name is looked up as the gazetteer holds it. Pure. Tried only when the name as sent is no
 * place: read as a misspelling instead, "N. Las Vegas" was one letter from Las Vegas and answered from there, not from
 * North Las Vegas, a city of its own. ("St", "Ft" and "Mt" are spelled out by normaliseCityName itself.)
 */

/** A direction's initial as the first word: "N. Las Vegas", "W Palm Beach". */
const DIRECTIONS: Readonly<Record<string, string>> = { n: 'North', s: 'South', e: 'East', w: 'West' };

/** USPS suffix abbreviations (Publication 28, appendix C1) that stand in place names. */
const WORDS: Readonly<Record<string, string>> = {
  hts: 'Heights',
  hgts: 'Heights',
  spgs: 'Springs',
  spg: 'Spring',
  jct: 'Junction',
  jctn: 'Junction',
  bch: 'Beach',
  lk: 'Lake',
  lks: 'Lakes',
  mtn: 'Mountain',
  vlg: 'Village',
  twp: 'Township',
  ctr: 'Center',
  hbr: 'Harbor',
  pk: 'Park',
  gdns: 'Gardens',
  crk: 'Creek',
  vly: 'Valley',
  cyn: 'Canyon',
};

/** `name` with its abbreviated words spelled out, or `name` itself when it has none. */
export function spelledOut(name: string): string {
  const words = name.trim().split(/\s+/);
  let changed = false;
  const out = words.map((word, i) => {
    const key = word.toLowerCase().replace(/\.$/, '');
    const full = (i === 0 && words.length > 1 ? DIRECTIONS[key] : undefined) ?? WORDS[key];
    if (full === undefined) return word;
    changed = true;
    return full;
  });
  return changed ? out.join(' ') : name;
}
