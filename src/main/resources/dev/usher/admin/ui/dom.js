// Small DOM and formatting helpers.

/** h('button', {class: 'x', onclick: f}, 'text', child) → an element. Attributes false/null are left out. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value == null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else if (key === 'value') el.value = value;
    else if (key === 'checked') el.checked = value;
    else el.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child == null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** "in 62 days", "in 5 hours", "3 days ago". */
export function relative(iso, now = Date.now()) {
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  const units = [['day', 86400e3], ['hour', 3600e3], ['minute', 60e3]];
  let text = 'less than a minute';
  for (const [unit, size] of units) {
    if (abs >= size) {
      const n = Math.floor(abs / size);
      text = `${n} ${unit}${n === 1 ? '' : 's'}`;
      break;
    }
  }
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

export function shortDate(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC');
}

/** The URL a site answers on: its own http:// prefix, plain HTTP for tls off, else HTTPS. */
export function siteUrl(name, policy) {
  if (/^https?:\/\//.test(name)) return name.replace(/\*\./, '');
  return `${policy === 'off' ? 'http' : 'https'}://${name.replace(/^\*\./, '')}/`;
}

/** A short, friendly issuer name: "Local CA", "Let's Encrypt (staging)", or the CA's host. */
export function issuerName(issuer) {
  if (issuer === 'local' || issuer === 'internal') return 'Local CA';
  if (issuer === 'files') return 'Own files';
  if (/letsencrypt/.test(issuer)) return `Let\u2019s Encrypt${/staging/.test(issuer) ? ' (staging)' : ''}`;
  return String(issuer).replace(/-directory$/, '');
}
