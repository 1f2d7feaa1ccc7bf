// DAIDE over WebSocket for the page: frames, tokens, the text form.
//
// Each binary WebSocket message carries one DAIDE frame (docs/protocol.md §3:
// type, pad, 16-bit big-endian length, body).  Messages are handled here in
// the DAIDE text form (docs/protocol.md §6.8: `NOW ( SPR 1901 ) ( FRA AMY PAR )`)
// and as nested arrays (`parse` gives ["NOW", ["SPR", 1901], ["FRA","AMY","PAR"]]).
// Nothing about the rules of the game is here: the server answers every
// question of legality (THX, MIS) and adjudication.

const IM = 0, RM = 1, DM = 2, FM = 3, EM = 4;
const BRA = 0x4000, KET = 0x4001, TEXT = 0x4b;

export class Tokens {
  // The token table of the server's variant: value -> mnemonic (GET /api/tokens).
  constructor(names) {
    this.names = new Map();
    this.values = new Map();
    for (const [value, name] of Object.entries(names)) this.add(Number(value), name);
  }
  add(value, name) {
    this.names.set(value, name);
    this.values.set(name, value);
  }
  // A game's own tokens: a game hosted on another map than the server's speaks its map's.
  static async load(game = null) {
    const answer = await (await fetch(game ? `/api/tokens?game=${game}` : "/api/tokens")).json();
    return new Tokens(answer.names);
  }

  // Text form -> token values.
  encode(text) {
    const out = [];
    let i = 0;
    while (i < text.length) {
      const c = text[i];
      if (/\s/.test(c)) { i++; continue; }
      if (c === "(") { out.push(BRA); i++; continue; }
      if (c === ")") { out.push(KET); i++; continue; }
      if (c === "'") {
        let s = "";
        i++;
        for (;;) {
          if (i >= text.length) throw new Error("unterminated string");
          if (text[i] === "'") {
            if (text[i + 1] === "'") { s += "'"; i += 2; continue; }
            i++;
            break;
          }
          s += text[i++];
        }
        for (const b of new TextEncoder().encode(s)) out.push((TEXT << 8) | b);
        continue;
      }
      let j = i;
      while (j < text.length && !/[\s()']/.test(text[j])) j++;
      const word = text.slice(i, j);
      i = j;
      if (/^-?\d+$/.test(word)) { out.push(Number(word) & 0x3fff); continue; }
      const value = this.values.get(word.toUpperCase());
      if (value === undefined) throw new Error(`unknown token ${word}`);
      out.push(value);
    }
    return out;
  }

  // Token values -> text form.
  decode(tokens) {
    const parts = [];
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      if (t < 0x4000) parts.push(String(t & 0x2000 ? t - 0x4000 : t));
      else if (t === BRA) parts.push("(");
      else if (t === KET) parts.push(")");
      else if (t >> 8 === TEXT) {
        const bytes = [];
        while (i < tokens.length && tokens[i] >> 8 === TEXT) bytes.push(tokens[i++] & 0xff);
        i--;
        const s = new TextDecoder().decode(new Uint8Array(bytes));
        parts.push("'" + s.replaceAll("'", "''") + "'");
      } else parts.push(this.names.get(t) ?? "0x" + t.toString(16).toUpperCase().padStart(4, "0"));
    }
    return parts.join(" ");
  }
}

// The text form as nested arrays: words, numbers, {text} for strings.
export function parse(text) {
  const stack = [[]];
  const re = /\s*(\(|\)|'(?:[^']|'')*'|[^\s()']+)/g;
  let m;
  while ((m = re.exec(text)) !== null) {
    const w = m[1];
    if (w === "(") stack.push([]);
    else if (w === ")") { const done = stack.pop(); stack[stack.length - 1].push(done); }
    else if (w.startsWith("'")) stack[stack.length - 1].push({ text: w.slice(1, -1).replaceAll("''", "'") });
    else if (/^-?\d+$/.test(w)) stack[stack.length - 1].push(Number(w));
    else stack[stack.length - 1].push(w);
  }
  return stack[0];
}

// Nested arrays back to the text form.
export function unparse(node) {
  if (Array.isArray(node)) return node.map((n) => (Array.isArray(n) ? "( " + unparse(n) + " )" : unparse(n))).join(" ");
  if (typeof node === "object") return "'" + node.text.replaceAll("'", "''") + "'";
  return String(node);
}

// One quoted string for the text form.
export function quote(s) {
  return "'" + String(s).replaceAll("'", "''") + "'";
}

function frame(type, body) {
  const out = new Uint8Array(4 + body.length);
  out[0] = type;
  out[2] = body.length >> 8;
  out[3] = body.length & 0xff;
  out.set(body, 4);
  return out;
}

// A DAIDE connection over a WebSocket: `send(text)`, `onmessage(text)`.
export class DaideSocket {
  // `watch`: the game an OBS watches; `game`: the game whose door this is (its map's RM,
  // and its NME, OBS and IAM: docs/hosting.md).
  constructor(tokens, { watch = null, game = null } = {}) {
    this.tokens = tokens;
    this.watch = watch;
    this.game = game;
    this.onmessage = () => {};
    this.onopen = () => {};
    this.onclose = () => {};
    this.ready = false;
    this.queue = [];
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const query = this.watch != null ? `?watch=${this.watch}` : this.game != null ? `?game=${this.game}` : "";
    const ws = (this.ws = new WebSocket(`${scheme}//${location.host}/daide${query}`));
    ws.binaryType = "arraybuffer";
    ws.onopen = () => ws.send(frame(IM, new Uint8Array([0, 1, 0xda, 0x10])));
    ws.onmessage = (event) => this._frame(new Uint8Array(event.data));
    ws.onclose = (event) => { this.ready = false; this.onclose(event); };
  }

  _frame(bytes) {
    const type = bytes[0];
    const body = bytes.subarray(4, 4 + ((bytes[2] << 8) | bytes[3]));
    if (type === RM) {
      // A variant's representation: 6-byte entries, token then 3 chars and a NUL.
      for (let i = 0; i + 6 <= body.length; i += 6) {
        const value = (body[i] << 8) | body[i + 1];
        this.tokens.add(value, String.fromCharCode(body[i + 2], body[i + 3], body[i + 4]).toUpperCase());
      }
      this.ready = true;
      for (const text of this.queue.splice(0)) this.send(text);
      this.onopen();
    } else if (type === DM) {
      const tokens = [];
      for (let i = 0; i + 1 < body.length; i += 2) tokens.push((body[i] << 8) | body[i + 1]);
      this.onmessage(this.tokens.decode(tokens));
    } else if (type === EM) {
      this.onmessage(`EM 0x${((body[0] << 8) | body[1]).toString(16).padStart(2, "0")}`);
    } else if (type === FM) {
      this.onmessage("FM");
    }
  }

  send(text) {
    if (!this.ready) { this.queue.push(text); return; }
    const tokens = this.tokens.encode(text);
    const body = new Uint8Array(tokens.length * 2);
    tokens.forEach((t, i) => { body[2 * i] = t >> 8; body[2 * i + 1] = t & 0xff; });
    this.ws.send(frame(DM, body));
  }

  close() {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(frame(FM, new Uint8Array()));
    if (this.ws) this.ws.close();
  }
}

// Small helpers for the pages.
export async function api(path, body) {
  const options = body === undefined ? {} : {
    // The server takes API POSTs only as JSON with this header (docs/web.md, "Requests"):
    // a form or a simple request of another site cannot send them.
    method: "POST",
    headers: { "content-type": "application/json", "x-daide-client": "web" },
    body: JSON.stringify(body),
  };
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    // Through the CSSOM: the CSP (style-src 'self') refuses style attributes, not this.
    else if (k === "style") node.style.cssText = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}
