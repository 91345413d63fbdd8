// The site list: every site with its backends' health, its certificate and its traffic, at a glance.
import { h, issuerName, relative, siteUrl } from './dom.js';

function upstreamsCell(site) {
  const other = { redirect: 'redirects', respond: 'fixed answer', files: 'serves files' };
  if (site.kind !== 'proxy') return h('span', { class: 'muted' }, other[site.kind] || site.kind);
  // up is null for a site in the file that is not running (not reloaded yet): unknown, not down.
  return h('ul', { class: 'upstreams' }, site.upstreams.map(u => {
    const state = u.up == null ? 'unknown' : u.up ? 'up' : 'down';
    return h('li', null, h('span', { class: `dot ${state}`, role: 'img', 'aria-label': state, title: state }),
      h('code', null, u.address), u.unverified && h('span', { class: 'badge warn', title: 'upstream_tls.insecure_skip_verify: '
        + 'the backend\'s certificate is not checked' }, 'certificate not checked'));
  }));
}

function tlsCell(tls) {
  if (!tls || tls.policy === 'off' || tls.state === 'none') return h('span', { class: 'muted' }, 'plain HTTP');
  const issuer = issuerName(tls.issuer || tls.policy);
  if (tls.state === 'failed') {
    return h('span', { class: 'state failed', title: tls.error || '' }, h('span', { class: 'dot down', 'aria-hidden': 'true' }),
      `failed${tls.error ? `: ${tls.error}` : ''}`);
  }
  if (tls.state === 'pending' || !tls.not_after) {
    return h('span', { class: 'state pending' }, h('span', { class: 'dot wait', 'aria-hidden': 'true' }), `${issuer} · pending`);
  }
  const soon = Date.parse(tls.not_after) - Date.now() < 7 * 86400e3 && tls.issuer !== 'local';
  const when = relative(tls.not_after);
  return h('span', { class: `state ${soon ? 'soon' : 'valid'}`, title: `valid until ${tls.not_after}` },
    h('span', { class: `dot ${soon ? 'wait' : 'up'}`, 'aria-hidden': 'true' }),
    `${issuer} · ${when.startsWith('in ') ? `expires ${when}` : `expired ${when}`}`);
}

function nameCell(site) {
  if (site.name.includes('*')) return h('strong', null, site.name);
  return h('a', { href: siteUrl(site.name, site.tls && site.tls.policy), rel: 'noreferrer', target: '_blank' },
    h('strong', null, site.name));
}

// A site that containers announce with labels: which containers, on which network. Read-only here.
function containersLine(site) {
  const names = (site.containers || []).map(c => `${c.name} (${c.network})`).join(', ');
  return h('div', { class: 'muted from-labels' }, `labels of ${names}`);
}

function actions(site, remove) {
  if (site.source === 'labels') {
    return h('span', { class: 'muted', title: 'Change the container labels to change this site' }, 'from labels');
  }
  const label = site.editable ? 'Edit' : 'View';
  return h('div', null,
    h('a', { class: 'button secondary', href: `#/site/${encodeURIComponent(site.name)}`,
      'aria-label': `${label} ${site.name}`, 'data-key': `edit:${site.name}` }, label),
    h('button', { type: 'button', class: 'danger-outline', 'aria-label': `Delete ${site.name}`,
      'data-key': `delete:${site.name}`, onclick: () => remove(site.name) }, 'Delete'));
}

function row(site, remove) {
  return h('tr', { 'data-site': site.name, 'data-source': site.source || 'file' },
    h('td', { 'data-label': 'Site' }, nameCell(site), site.running === false
      && h('span', { class: 'badge pending', title: 'In the file but not in the running config: reload to apply it' }, 'not loaded'),
      site.source === 'labels' && containersLine(site)),
    h('td', { 'data-label': 'Kind' }, site.kind),
    h('td', { 'data-label': 'Upstreams' }, upstreamsCell(site)),
    h('td', { 'data-label': 'TLS' }, tlsCell(site.tls)),
    h('td', { 'data-label': 'Requests/min', class: 'num' }, String(site.requests_last_minute ?? 0)),
    h('td', { class: 'row-actions' }, actions(site, remove)));
}

function summary(sites) {
  const down = sites.reduce((n, s) => n + (s.upstreams || []).filter(u => u.up === false).length, 0);
  const failed = sites.filter(s => s.tls && s.tls.state === 'failed').length;
  const parts = [`${sites.length} site${sites.length === 1 ? '' : 's'}`];
  parts.push(down ? `${down} upstream${down === 1 ? '' : 's'} down` : 'all upstreams up');
  if (failed) parts.push(`${failed} certificate${failed === 1 ? '' : 's'} failing`);
  return h('p', { class: `summary ${down || failed ? 'bad' : 'good'}`, id: 'summary' }, parts.join(' · '));
}

export async function sitesView(app) {
  const body = h('div', { id: 'site-list' });
  const element = h('section', { 'aria-labelledby': 'sites-title' },
    h('div', { class: 'heading' }, h('h1', { id: 'sites-title' }, 'Sites'),
      h('a', { class: 'button', href: '#/new', id: 'add-site' }, 'Add site')),
    body);

  async function remove(name) {
    if (!await app.confirm(`Delete ${name}?`, `Its lines are removed from the config file (the previous file is kept `
      + 'as a numbered backup) and Usher stops serving it.', 'Delete site')) return;
    try {
      const res = await app.api.deleteSite(name, app.version);
      app.setVersion(res && res.version);
      app.say(`Deleted ${name}.`);
      await load();
    } catch (err) {
      stale(err, `Could not delete ${name}`);
    }
  }

  function stale(err, what) {
    if (err.status === 412) {
      app.say('The config file changed on disk since you loaded it. Nothing was changed.', 'warn',
        { label: 'Reload data', run: () => { app.clear(); load(); } });
    } else {
      app.say(`${what}: ${err.message}`, 'error');
    }
  }

  async function load() {
    let data;
    try {
      data = await app.api.sites();
    } catch (err) {
      if (err.status !== 401) body.replaceChildren(h('p', { class: 'banner error', role: 'alert' }, `Cannot load the sites: ${err.message}`));
      return;
    }
    app.setVersion(data.version);
    const focused = document.activeElement && document.activeElement.dataset && document.activeElement.dataset.key;
    const sites = data.sites || [];
    if (!sites.length) {
      body.replaceChildren(h('p', { class: 'empty' }, 'No sites yet. ', h('a', { href: '#/new' }, 'Add the first one.')));
    } else {
      body.replaceChildren(summary(sites), h('table', { class: 'sites' },
        h('thead', null, h('tr', null, ['Site', 'Kind', 'Upstreams', 'TLS', 'Req/min'].map(t => h('th', { scope: 'col' }, t)),
          h('th', { scope: 'col' }, h('span', { class: 'vh' }, 'Actions')))),
        h('tbody', null, sites.map(s => row(s, remove)))));
    }
    // A refresh must not throw the keyboard user's focus away.
    if (focused) body.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  }

  await load();
  return { element, poll: load, refresh: load, focus: () => {} };
}
