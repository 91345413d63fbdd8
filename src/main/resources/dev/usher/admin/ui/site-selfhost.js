// The site form's self-hosting part: what the site serves (upstreams or a folder), a login through an SSO server
// (forward auth), riding out a backend restart, and maintenance mode.
import { h } from './dom.js';
import { check, field, select } from './form-fields.js';

const SERVES = [['upstreams', 'forwards to upstreams (a proxy)'], ['folder', 'serves a folder (a static site)']];
const AUTH = [['', 'none'], ['authelia', 'Authelia (4.38 or later)'], ['authentik', 'Authentik (its outpost)'],
  ['custom', 'another forward-auth server']];

/**
 * The inputs for {@code site} (the API's form JSON). {@code upstreamsPart}: the upstream rows' fieldset, hidden while
 * the site serves a folder.
 */
export function selfHostingPart(site, upstreamsPart) {
  const auth = site.forward_auth || null;
  const inputs = {
    serves: select('serves', SERVES, site.root ? 'folder' : 'upstreams'),
    root: h('input', { id: 'root', name: 'root', value: site.root || '', placeholder: '/srv/www', spellcheck: 'false' }),
    auth: select('forward_auth-preset', AUTH, auth ? (auth.preset || 'custom') : ''),
    authUrl: h('input', { id: 'forward_auth-url', name: 'forward_auth.url', value: (auth && auth.url) || '',
      placeholder: 'http://authelia:9091', spellcheck: 'false' }),
    wait: h('input', { id: 'wait_for_backend', name: 'wait_for_backend', value: site.wait_for_backend || '',
      placeholder: 'e.g. 10s', spellcheck: 'false' }),
    maintenance: h('input', { type: 'checkbox', id: 'maintenance', name: 'maintenance', checked: site.maintenance === true }),
  };
  const rootField = field('Folder', inputs.root, 'root', 'Files are served from here (index.html for a folder); '
    + 'hidden files and anything outside it are refused.');
  const urlField = field('Auth server URL', inputs.authUrl, 'forward_auth.url', 'Its internal http:// address; a '
    + 'preset fills in the path and the headers to copy (Remote-User…, X-authentik-…).');
  const show = () => {
    const folder = inputs.serves.value === 'folder';
    rootField.hidden = !folder;
    upstreamsPart.hidden = folder;
    urlField.hidden = inputs.auth.value === '';
  };
  inputs.serves.addEventListener('change', show);
  inputs.auth.addEventListener('change', show);
  show();

  return {
    /** The choice between upstreams and a folder, to go above the upstream rows. */
    serves: h('div', null, field('This site', inputs.serves, 'serves'), rootField),
    /** Login, restarts and maintenance. */
    options: h('details', { class: 'more', id: 'self-hosting', open: Boolean(auth || site.wait_for_backend || site.maintenance) },
      h('summary', null, 'Login, restarts and maintenance'),
      field('Login first (forward auth)', inputs.auth, 'forward_auth', 'Visitors sign in at your SSO server before they reach the site.'),
      urlField,
      field('Wait for a restarting backend', inputs.wait, 'wait_for_backend', 'Empty = answer 502 at once. With 10s, '
        + 'a request waits up to 10 s for the backend to come back (a compose pull && up), so visitors see no error.'),
      check('Maintenance mode', inputs.maintenance, 'maintenance', 'every visitor gets the maintenance page (503) until unchecked')),
    /** True when the site serves a folder (it then needs no upstream). */
    servesFolder: () => inputs.serves.value === 'folder',
    /** Adds the part's fields to the form's JSON, leaving defaults out. */
    collect(json) {
      if (inputs.serves.value === 'folder') {
        json.upstreams = [];
        json.root = inputs.root.value.trim();
      }
      if (inputs.auth.value) {
        json.forward_auth = { url: inputs.authUrl.value.trim() };
        if (inputs.auth.value !== 'custom') json.forward_auth.preset = inputs.auth.value;
      }
      if (inputs.wait.value.trim()) json.wait_for_backend = inputs.wait.value.trim();
      if (inputs.maintenance.checked) json.maintenance = true;
    },
  };
}
