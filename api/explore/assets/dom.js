// Elements built through DOM methods only: the page's policy requires Trusted Types, so no HTML string
// ever becomes markup, and text from the API (titles, names, snippets) is always text.

const SVG_NS = 'http://www.w3.org/2000/svg';

function fill(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** `el('a', { href }, 'text', otherNode)`: attributes set (null and false left out), children appended. */
export function el(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

export function svg(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

const ENTITIES = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/**
 * A search snippet as nodes: the API marks each matched word `<mark>…</mark>` and escapes the rest
 * (docs/api.md "Search text"), so the text between the tags is unescaped and the marks rebuilt.
 */
export function snippetNodes(snippet) {
  const nodes = [];
  let marked = false;
  for (const part of snippet.split(/(<mark>|<\/mark>)/)) {
    if (part === '<mark>') marked = true;
    else if (part === '</mark>') marked = false;
    else if (part !== '') {
      const text = part.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]);
      nodes.push(marked ? el('mark', {}, text) : text);
    }
  }
  return nodes;
}

/** A link to a publisher's original, opened apart from this page, which it learns nothing of. */
export function originalLink(url, text, name) {
  return el('a', { href: url, target: '_blank', rel: 'noopener noreferrer', class: 'original', 'aria-label': name }, text);
}
