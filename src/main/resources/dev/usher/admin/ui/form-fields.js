// The form's labelled fields: each with its hint and the element its server errors go to (by field path).
import { h } from './dom.js';

/** An error element for a field path; the input points at it with aria-describedby. */
export function errorFor(path) {
  return h('p', { class: 'field-error', id: `err-${path.replace(/[^a-z0-9]+/gi, '-')}`, 'data-error-for': path });
}

export function field(label, input, path, hint) {
  const err = errorFor(path);
  const hintEl = hint && h('p', { class: 'hint', id: `hint-${input.id}` }, hint);
  input.setAttribute('aria-describedby', [err.id, hintEl && hintEl.id].filter(Boolean).join(' '));
  return h('div', { class: 'field', 'data-field': path }, h('label', { for: input.id }, label), input, hintEl, err);
}

export function check(label, input, path, hint) {
  const err = errorFor(path);
  input.setAttribute('aria-describedby', err.id);
  return h('div', { class: 'field check', 'data-field': path },
    h('label', { for: input.id }, input, h('span', null, label, hint && h('span', { class: 'hint' }, ` — ${hint}`))), err);
}

export function select(id, options, value) {
  return h('select', { id, name: id }, options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)));
}
