// CloudFront Function (runtime cloudfront-js-2.0) on viewer request of every cached function path.
// Deployed as it is by infra/edge-function.ts (KVS_ID filled in); test/edge-function.test.ts runs it under the
// runtime's rules. It (1) copies the viewer Host for the function's links, (2) on /v1/attorneys rewrites the query
// into one canonical form so equivalent queries share one cache entry without changing any answer, and (3) writes
// the per-request log line for every request it sees, cache hit or miss: location as sent, time, user agent,
// src, and the viewer address hashed with the day's salt from the KeyValueStore. Never the raw address.
import cf from 'cloudfront';

var crypto = require('crypto');

var KVS_ID = '__KVS_ID__';
var VIEWER_HOST_HEADER = 'x-viewer-host';
var ANSWERS = '/v1/attorneys';
var ACCEPTED = ['lat', 'limit', 'lng', 'location', 'practice_area', 'radius_miles', 'src', 'zip'];
var DECIMAL = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/;
var PLAIN_DECIMAL = /^-?\d+(?:\.\d+)?$/;
var CONTROL = /[\u0000-\u001f\u007f]/;
// src the function can check itself (printable ASCII); anything else is left for the function to judge.
var PLAIN_SRC = /^[\x20-\x7e]{1,100}$/;
var HASH_HEX = 16;
var MAX_FIELD = 256;
var MAX_LOCATION = 200;

function decode(part) {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch (e) {
    return null;
  }
}

// The query as the shim will read it (name -> decoded value), or null when the function must not touch it:
// an unknown or repeated name (the 400 names the first one in the order sent), or an undecodable value.
function readQuery(querystring) {
  var out = {};
  var names = Object.keys(querystring);
  for (var i = 0; i < names.length; i++) {
    var name = names[i];
    var entry = querystring[name];
    if (ACCEPTED.indexOf(name) < 0) return null;
    if (entry.multiValue && entry.multiValue.length > 1) return null;
    var value = decode(entry.value);
    if (value === null || CONTROL.test(value)) return null;
    out[name] = value;
  }
  return out;
}

function numberIn(text, min, max, integer) {
  if (!DECIMAL.test(text)) return null;
  var n = Number(text);
  if (n < min || n > max || (integer && n !== Math.floor(n))) return null;
  return n;
}

// The canonical query string of a readable query: names sorted, values percent-encoded one way, defaults left out,
// lat+lng as the `location` that means the same point. A value rewritten or left out is always a valid one, so the
// answer is the same; an invalid value stays as sent and gets the same 400.
function canonical(q) {
  var out = {};
  for (var name in q) out[name] = q[name];
  var hasOther = out.location !== undefined || out.zip !== undefined;
  if (
    !hasOther &&
    out.lat !== undefined &&
    out.lng !== undefined &&
    PLAIN_DECIMAL.test(out.lat) &&
    PLAIN_DECIMAL.test(out.lng)
  ) {
    var lat = Number(out.lat);
    var lng = Number(out.lng);
    if (lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180) {
      out.location = out.lat + ',' + out.lng;
      delete out.lat;
      delete out.lng;
    }
  }
  if (out.radius_miles !== undefined) {
    var radius = numberIn(out.radius_miles, 1, 50, false);
    if (radius === 15) delete out.radius_miles;
    else if (radius !== null) out.radius_miles = String(radius);
  }
  if (out.limit !== undefined) {
    var limit = numberIn(out.limit, 1, 25, true);
    if (limit === 10) delete out.limit;
    else if (limit !== null) out.limit = String(limit);
  }
  if (out.practice_area === 'personal_injury') delete out.practice_area;
  // src names the caller, not the answer (it is logged here): left out of the cache key when it is valid.
  if (out.src !== undefined && PLAIN_SRC.test(out.src)) delete out.src;
  return Object.keys(out)
    .sort()
    .map(function (name) {
      return encodeURIComponent(name) + '=' + encodeURIComponent(out[name]);
    })
    .join('&');
}

function rawQuery(querystring) {
  var parts = [];
  for (var name in querystring) {
    var entry = querystring[name];
    var values = entry.multiValue && entry.multiValue.length > 0 ? entry.multiValue : [entry];
    for (var i = 0; i < values.length; i++) parts.push(values[i].value === '' ? name : name + '=' + values[i].value);
  }
  return parts.join('&');
}

function clip(value, max) {
  if (value === undefined || value === null) return null;
  return value.length > max ? value.slice(0, max) : value;
}

function sentValue(querystring, name) {
  var entry = querystring[name];
  if (entry === undefined) return null;
  var value = decode(entry.value);
  return value === null ? entry.value : value;
}

// The location as sent, whichever form was used (as the function's own log line has it).
function locationSent(querystring) {
  var text = sentValue(querystring, 'location');
  if (text === null) text = sentValue(querystring, 'zip');
  if (text === null) {
    var lat = sentValue(querystring, 'lat');
    var lng = sentValue(querystring, 'lng');
    if (lat === null && lng === null) return null;
    text = (lat === null ? '' : lat) + ',' + (lng === null ? '' : lng);
  }
  return clip(text, MAX_LOCATION);
}

async function addressHash(ip, day) {
  try {
    var salt = await cf.kvs(KVS_ID).get('salt-' + day);
    if (!/^[0-9a-f]{64}$/.test(salt)) return null;
    var address = ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');
    return crypto.createHmac('sha256', Buffer.from(salt, 'hex')).update(address).digest('hex').slice(0, HASH_HEX);
  } catch (e) {
    // No salt for the day (the rotation failed): the line is written without a hash, never with the address.
    return null;
  }
}

async function handler(event) {
  var request = event.request;
  request.headers[VIEWER_HOST_HEADER] = { value: request.headers.host ? request.headers.host.value : '' };
  var answers = request.uri === ANSWERS;
  var location = answers ? locationSent(request.querystring) : null;
  var src = answers ? clip(sentValue(request.querystring, 'src'), MAX_FIELD) : null;
  var key = null;
  if (answers) {
    var q = readQuery(request.querystring);
    key = q === null ? rawQuery(request.querystring) : canonical(q);
    if (q !== null) request.querystring = key;
  }
  var ua = request.headers['user-agent'];
  var time = new Date().toISOString();
  console.log(
    JSON.stringify({
      log: 'edge_request',
      time: time,
      endpoint: request.uri,
      location: location,
      user_agent: clip(ua ? ua.value : null, MAX_FIELD),
      address_hash: await addressHash(event.viewer.ip, time.slice(0, 10)),
      src: src,
      // The query the cache is keyed on: the function's own log line for a miss has the same one, with the answer's
      // query_id, covered, result count, metro and ZIP3.
      cache_key: key === null ? null : clip(key, 1024),
    }),
  );
  return request;
}
