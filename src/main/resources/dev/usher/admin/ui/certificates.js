// Certificates: what each site's certificate is, when it ends and renews, and a "Renew now" button.
import { h, issuerName, relative, shortDate } from './dom.js';

function detail(term, value) {
  return [h('dt', null, term), h('dd', null, value)];
}

function card(cert, renew) {
  const ends = cert.not_after ? `${shortDate(cert.not_after)} (${relative(cert.not_after)})` : '—';
  return h('article', { class: 'card cert', 'data-cert': cert.name, 'aria-labelledby': `cert-${cert.name}` },
    h('div', { class: 'heading' },
      h('h2', { id: `cert-${cert.name}` }, cert.name),
      h('span', { class: `badge ${cert.state}` }, cert.state || 'unknown')),
    h('dl', null,
      detail('Issuer', cert.issuer ? h('span', { title: cert.issuer }, issuerName(cert.issuer)) : '—'),
      detail('Valid from', shortDate(cert.not_before)),
      detail('Valid until', ends),
      detail('Next renewal', cert.next_renewal ? `${shortDate(cert.next_renewal)} (${relative(cert.next_renewal)})` : '—'),
      detail('SHA-256', h('code', { class: 'hash' }, cert.sha256 || '—')),
      cert.error && detail('Last error', h('span', { class: 'error-text' }, cert.error))),
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', 'aria-label': `Renew ${cert.name} now`,
      onclick: e => renew(cert.name, e.currentTarget) }, 'Renew now')));
}

export async function certificatesView(app) {
  const body = h('div', { class: 'cards' });
  const element = h('section', { 'aria-labelledby': 'certs-title' },
    h('div', { class: 'heading' }, h('h1', { id: 'certs-title' }, 'Certificates')), body);

  async function renew(name, button) {
    button.disabled = true;
    try {
      await app.api.renew(name);
      app.say(`Renewal of ${name} started; the new certificate shows here when it is issued.`);
      setTimeout(load, 1500);
    } catch (err) {
      app.say(`Could not renew ${name}: ${err.message}`, 'error');
    } finally {
      button.disabled = false;
    }
  }

  async function load() {
    try {
      const data = await app.api.certificates();
      const list = Array.isArray(data) ? data : (data.certificates || []);
      body.replaceChildren(...(list.length ? list.map(c => card(c, renew))
        : [h('p', { class: 'empty' }, 'No certificates: every site is plain HTTP.')]));
    } catch (err) {
      if (err.status !== 401) body.replaceChildren(h('p', { class: 'banner error', role: 'alert' }, `Cannot load certificates: ${err.message}`));
    }
  }

  await load();
  return { element, refresh: load };
}
