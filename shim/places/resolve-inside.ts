/**
 * A place named inside a city ("Buckhead, Atlanta, GA", "I-10 near Baytown, TX", "350 5th Ave, New York, NY"):
 * the place itself when the gazetteer knows it within AREA_MILES of the city's centre, else the city, approximate, with a note
 * naming what was not known and that the person's ZIP gives a closer point. A same-named place farther away is never
 * the answer: the note names it, for the caller to send if that is what the person meant.
 */
import { haversineMiles } from '../search/geo.ts';
import type { SiteReader } from '../search/reader.ts';
import { centreNote, cityEntry, cityLocation, locateCity, resolveCity, type CityQuery } from './resolve-city.ts';
import type { LocationT } from '../contract/schemas.ts';
import { AREA_MILES } from '../contract/constants.ts';

function withNote(location: LocationT, note: string): LocationT {
  location.note = location.note === undefined ? note : `${note} ${location.note}`;
  return location;
}

/** Resolve "X, City, ST": `q.inside` names X; the city is `q.city`. Rejects as resolveCity does for an unknown city. */
export async function resolveInside(
  reader: SiteReader,
  q: CityQuery & { inside: { text: string; address: boolean } },
): Promise<LocationT> {
  const { inside, ...cityQuery } = q;
  // X's entry is read beside the city's, and the metro of the one answered from only once it is chosen.
  const placeEntry = inside.address ? null : cityEntry(reader, inside.text, q.state);
  placeEntry?.catch(() => undefined);
  const base = await locateCity(reader, cityQuery);
  const cityName = `${base.entry.name}, ${q.state}`;
  const closer = "The person's ZIP code gives a closer point.";
  const fromCentre = `distances are measured from the centre of ${cityName}`;
  // The note names the centre the distances are measured from; the city's own centre note would repeat it.
  const fromBase = async (note: string) => withNote(await cityLocation(reader, base.q, base.entry, false), note);
  if (placeEntry === null) {
    return fromBase(
      `The street address ${JSON.stringify(inside.text)} is not located by this service (only a ZIP or "lat,lng" is); ${fromCentre}. ${closer}`,
    );
  }
  const city = await cityEntry(reader, base.entry.name, q.state);
  const place = await placeEntry;
  if (place !== null && city !== null) {
    const miles = haversineMiles(city.lat, city.lng, place.lat, place.lng);
    if (miles <= AREA_MILES) {
      const located = await resolveCity(reader, {
        city: place.name,
        state: q.state,
        input: q.input,
        parameter: q.parameter,
        onPoint: q.onPoint,
      });
      // The place's own notes (how many of its name the state has) would speak of the state, not of this city.
      const read = `Read as ${place.name}, ${q.state}, ${miles.toFixed(0)} mi from the centre of ${cityName}.`;
      located.note = q.loosely === undefined ? `${read} ${centreNote(`${place.name}, ${q.state}`)}` : read;
      return located;
    }
    return fromBase(
      `${JSON.stringify(inside.text)} is not a place this service knows within ${AREA_MILES} mi of ${cityName}; ${fromCentre}. ` +
        `${place.name}, ${q.state} is ${miles.toFixed(0)} mi away and was not used; if the ` +
        `person meant it, send ${JSON.stringify(`${place.name}, ${q.state}`)}. ${closer}`,
    );
  }
  return fromBase(
    `${JSON.stringify(inside.text)} is not a place this service knows within ${AREA_MILES} mi of ${cityName}; ${fromCentre}. ${closer}`,
  );
}

/** Resolve a parsed "City, ST", or "X, City, ST" / "X in City, ST" when `q.inside` names a place in the city. */
export async function resolveCityQuery(reader: SiteReader, q: CityQuery): Promise<LocationT> {
  if (q.inside === undefined) return resolveCity(reader, q);
  const { inside, whole, ...rest } = q;
  // "Lake in the Hills, IL" is one name; "Buckhead in Atlanta, GA" is a place in a city.
  if (whole !== undefined && (await cityEntry(reader, whole, q.state)) !== null)
    return resolveCity(reader, { ...rest, city: whole });
  return resolveInside(reader, { ...rest, inside });
}
