// The search on /: calls GET /v1/attorneys on this origin and shows the answer. Builds DOM nodes with textContent only
// (no HTML strings), so nothing from an answer is ever parsed as markup. Copied into the site by generator/pages.
'use strict';

(function () {
  const form = document.getElementById('search');
  const input = document.getElementById('location');
  const radius = document.getElementById('radius');
  const locate = document.getElementById('locate');
  const status = document.getElementById('status');
  const results = document.getElementById('results');
  const heading = document.getElementById('results-heading');
  const list = document.getElementById('result-list');
  const disclosure = document.getElementById('disclosure');
  const notCovered = document.getElementById('not-covered');
  const locationNote = document.getElementById('location-note');
  if (!form || !input || !radius || !status || !results || !heading || !list || !disclosure || !notCovered) return;
  const layout = results.querySelector('.results-layout');
  const notCoveredLead = notCovered.textContent;

  /** Metro slug -> name, written into the form by the page generator. */
  let metroNames = {};
  try {
    metroNames = JSON.parse(form.dataset.metroNames || '{}');
  } catch {
    metroNames = {};
  }
  function metroName(slug) {
    return Object.prototype.hasOwnProperty.call(metroNames, slug) ? metroNames[slug] : slug;
  }

  function plural(n, one, many) {
    return `${n} ${n === 1 ? one : many}`;
  }

  /** An element with optional class and text. */
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function say(text) {
    status.textContent = text;
  }

  function pct(v) {
    return `${Number(v).toFixed(1)}%`;
  }

  function visibilityLine(label, v, extra) {
    const p = el('p', 'vis');
    p.append(el('strong', null, `${label}: `));
    p.append(`top three in ${pct(v.top3_share_pct)} and shown at all in ${pct(v.appears_share_pct)} of ${extra}`);
    return p;
  }

  function resultItem(r) {
    const li = el('li', 'result');
    const article = el('article');
    article.setAttribute('aria-labelledby', `r-${r.listing_id}`);
    const h = el('h3', null, r.name);
    h.id = `r-${r.listing_id}`;
    article.append(h);
    article.append(el('p', 'distance', `${Number(r.distance_miles).toFixed(2)} miles away`));
    article.append(el('p', 'address', r.address));
    const contact = el('p', 'contact');
    if (r.phone) {
      const tel = el('a', null, r.phone);
      tel.href = `tel:${r.phone.replace(/[^0-9+]/g, '')}`;
      contact.append(tel);
    }
    if (r.website) {
      if (r.phone) contact.append(' · ');
      const a = el('a', null, `Website${r.website_domain ? ` (${r.website_domain})` : ''}`);
      a.href = r.website;
      a.rel = 'noopener noreferrer';
      contact.append(a);
    }
    if (contact.childNodes.length > 0) article.append(contact);
    if (r.hours && Array.isArray(r.hours.text)) {
      const details = el('details', 'hours');
      details.append(el('summary', null, `Opening hours (${r.hours.timezone})`));
      const ul = el('ul');
      for (const line of r.hours.text) ul.append(el('li', null, line));
      details.append(ul);
      article.append(details);
    }
    const v = r.map_visibility;
    if (v) {
      article.append(
        visibilityLine(
          'Map visibility of this office',
          v,
          `${v.grid_samples} map searches in ${metroName(v.metro)}, week of ${v.week_of}`,
        ),
      );
    } else {
      article.append(el('p', 'vis', 'Map visibility: this office is not in a measured metro.'));
    }
    const b = r.brand_index;
    if (b)
      article.append(
        visibilityLine(
          'Firm across the metro',
          b,
          `searches in ${metroName(b.metro)} (${plural(b.offices_measured, 'office', 'offices')} measured)`,
        ),
      );
    const flags = [`Profile: ${r.profile_type}`, `Sponsored: ${r.sponsored ? 'yes' : 'no'}`];
    if (r.google_listing_claimed !== null && r.google_listing_claimed !== undefined)
      flags.push(`Map listing claimed: ${r.google_listing_claimed ? 'yes' : 'no'}`);
    article.append(el('p', 'flags', `${flags.join(' · ')} (shown for transparency; never affects order)`));
    li.append(article);
    return li;
  }

  function show(body) {
    list.replaceChildren(...body.results.map(resultItem));
    disclosure.textContent = body.disclosure;
    const where = body.location.city
      ? `${body.location.city}, ${body.location.state}`
      : body.location.zip || body.location.input;
    // How the place was read (a ZIP's centre, a nickname, one city among several): the person must know what was searched.
    if (locationNote) {
      const note = typeof body.location.note === 'string' ? body.location.note : '';
      locationNote.textContent = note;
      locationNote.hidden = note === '';
    }
    if (!body.covered) {
      // No data is not "no lawyers": the answer's own disclosure says what it means, in place of an empty list.
      notCovered.textContent = `${notCoveredLead} ${body.disclosure}`;
      notCovered.hidden = false;
      if (layout) layout.hidden = true;
      heading.textContent = `No data for ${where}`;
      results.hidden = false;
      say(
        'No results: this directory has no data for this area (outside the measured metros). That does not mean there are no lawyers there.',
      );
      heading.focus();
      return;
    }
    notCovered.hidden = true;
    if (layout) layout.hidden = false;
    heading.textContent = `${body.results.length} of ${plural(body.firms_within_radius, 'firm', 'firms')} within ${body.radius_miles_used} miles of ${where}, nearest first`;
    results.hidden = false;
    say(
      body.results.length === 0
        ? `No results: the directory lists no office within ${body.radius_miles_used} miles of this place. Try a larger radius.`
        : `${body.results.length} results, nearest first.`,
    );
    heading.focus();
  }

  async function search(params) {
    params.set('radius_miles', radius.value);
    params.set('limit', '25');
    params.set('src', 'web-search-page');
    say('Searching…');
    let response;
    try {
      response = await fetch(`/v1/attorneys?${params.toString()}`, { headers: { accept: 'application/json' } });
    } catch {
      say('The search could not reach the service. Check your connection and try again.');
      return;
    }
    let body;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (!response.ok || body === null) {
      results.hidden = true;
      const detail = body && body.detail ? body.detail : `The service answered ${response.status}.`;
      say(detail);
      input.setAttribute('aria-invalid', response.status === 400 ? 'true' : 'false');
      return;
    }
    input.removeAttribute('aria-invalid');
    show(body);
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = input.value.trim();
    if (value === '') {
      say('Enter a ZIP code such as 60601 or a city such as "Chicago, IL".');
      input.focus();
      return;
    }
    void search(new URLSearchParams({ location: value }));
  });

  if (locate && 'geolocation' in navigator) {
    locate.hidden = false;
    locate.addEventListener('click', () => {
      say('Asking your browser for your location…');
      navigator.geolocation.getCurrentPosition(
        (pos) => {
          const lat = pos.coords.latitude.toFixed(4);
          const lng = pos.coords.longitude.toFixed(4);
          input.value = `${lat},${lng}`;
          void search(new URLSearchParams({ location: `${lat},${lng}` }));
        },
        () => say('Your location is not available. Enter a ZIP code or "City, ST" instead.'),
        { maximumAge: 600000, timeout: 15000 },
      );
    });
  }
})();
