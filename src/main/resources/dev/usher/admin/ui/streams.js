// Streams: the TCP/UDP ports Usher relays and the passthrough sites, each route with its backends (read-only; edit
// usher.yaml to change them).
import { h } from './dom.js';

function backends(route) {
  return h('ul', { class: 'backends' }, ...route.backends.map(b =>
    h('li', null, h('code', null, b.address), ' ',
      h('span', { class: `badge ${b.up === false ? 'down' : 'up'}` }, b.up === null ? 'unknown' : b.up ? 'up' : 'down'))));
}

function routeRow(route) {
  return h('tr', null,
    h('td', null, route.sni || (route.sni === null ? 'any' : '')),
    h('td', null, backends(route)),
    h('td', null, route.proxy_protocol));
}

function card(stream) {
  return h('article', { class: 'card stream', 'data-stream': stream.name, 'aria-labelledby': `stream-${stream.name}` },
    h('div', { class: 'heading' },
      h('h2', { id: `stream-${stream.name}` }, stream.name),
      h('span', { class: 'badge' }, stream.protocol)),
    h('table', null,
      h('thead', null, h('tr', null, h('th', null, 'Server name'), h('th', null, 'Backends'), h('th', null, 'PROXY'))),
      h('tbody', null, ...stream.routes.map(routeRow))));
}

function passthroughCard(site) {
  return h('article', { class: 'card stream', 'data-passthrough': site.sni, 'aria-labelledby': `pt-${site.sni}` },
    h('div', { class: 'heading' },
      h('h2', { id: `pt-${site.sni}` }, site.sni),
      h('span', { class: 'badge' }, 'TLS passthrough')),
    backends(site));
}

export async function streamsView(app) {
  const body = h('div', { class: 'cards' });
  const element = h('section', { 'aria-labelledby': 'streams-title' },
    h('div', { class: 'heading' }, h('h1', { id: 'streams-title' }, 'Streams')), body);

  async function load() {
    try {
      const data = await app.api.streams();
      const cards = [...data.streams.map(card), ...data.passthrough.map(passthroughCard)];
      body.replaceChildren(...(cards.length ? cards
        : [h('p', { class: 'empty' }, 'No streams and no passthrough sites: add a streams: section to usher.yaml.')]));
    } catch (err) {
      if (err.status !== 401) body.replaceChildren(h('p', { class: 'banner error', role: 'alert' }, `Cannot load streams: ${err.message}`));
    }
  }

  await load();
  return { element, refresh: load };
}
