// Fleet: the Usher instances sharing this one's storage (storage: in usher.yaml), from their heartbeats; a node
// whose config hash differs from this one's is flagged as drift (its usher.yaml was not deployed alike).
import { h, relative, shortDate } from './dom.js';

function row(node) {
  return h('tr', { 'data-node': node.name, class: node.drift ? 'drift' : null },
    h('td', null, node.name, node.self ? ' (this node)' : ''),
    h('td', null, node.version),
    h('td', null, h('code', { class: 'hash' }, node.config_hash), ' ',
      node.drift ? h('span', { class: 'badge failed' }, 'drift') : h('span', { class: 'badge valid' }, 'same')),
    h('td', null, node.last_reload ? `${shortDate(node.last_reload)} (${relative(node.last_reload)})` : '—'),
    h('td', null, node.seen_at ? relative(node.seen_at) : '—'));
}

export async function fleetView(app) {
  const body = h('div', null);
  const element = h('section', { 'aria-labelledby': 'fleet-title' },
    h('div', { class: 'heading' }, h('h1', { id: 'fleet-title' }, 'Fleet')), body);

  async function load() {
    try {
      const data = await app.api.fleet();
      if (!data.storage) {
        body.replaceChildren(h('p', { class: 'empty' },
          'This node runs alone: add storage: to usher.yaml to share certificates with other instances.'));
        return;
      }
      // replaceChildren would write a null as the text "null": the banners that do not apply are left out
      body.replaceChildren(...[
        h('p', null, `Node ${data.node}, sharing ${data.storage}: `,
          h('span', { class: `badge ${data.reachable ? 'up' : 'down'}` }, data.reachable ? 'reachable' : 'unreachable')),
        data.drift ? h('p', { class: 'banner error', role: 'alert' },
          'Config drift: not every node runs the same sites (their config hashes differ). Deploy the same usher.yaml to each.') : null,
        data.error ? h('p', { class: 'banner error', role: 'alert' }, `Cannot list the nodes: ${data.error}`) : null,
        h('table', { class: 'fleet' },
          h('thead', null, h('tr', null, h('th', null, 'Node'), h('th', null, 'Version'), h('th', null, 'Config'),
            h('th', null, 'Last reload'), h('th', null, 'Last heartbeat'))),
          h('tbody', null, ...data.nodes.map(row)))].filter(Boolean));
    } catch (err) {
      if (err.status !== 401) body.replaceChildren(h('p', { class: 'banner error', role: 'alert' }, `Cannot load the fleet: ${err.message}`));
    }
  }

  await load();
  return { element, refresh: load };
}
