// The web table: one page, plain JavaScript. It shows the view the server sends (the seat's
// own view, never another hand), checks a selection against the legal plays the view carries,
// and acts through the bot's one action API (POST /api/action). Live views arrive over a
// WebSocket that reconnects, and resyncs, by itself.
"use strict";

(() => {
  const tg = window.Telegram && window.Telegram.WebApp ? window.Telegram.WebApp : null;
  const hashParams = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const initData = (tg && tg.initData) || hashParams.get("tgWebAppData") || "";
  let gameId = query.get("game") || null;

  const RANKS = { 11: "J", 12: "Q", 13: "K", 14: "A", 15: "2" };
  const SUITS = ["♠", "♥", "♣", "♦"];
  const FLUSH_MIN = 5; // as tableview.FLUSH_MIN
  const TRICK_SHOWN = 6; // as render.TRICK_ENTRIES

  const state = {
    view: null,
    strings: {},
    selected: new Set(), // positions in view.hand (sorted by rank)
    bySuit: false,
    showLast: false,
    hint: -1,
    deadline: null, // performance.now() when the turn runs out
    busy: false,
    socket: null,
    retry: 0,
    handKey: "",
  };

  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const t = (key, values) => {
    let s = state.strings[key] || FALLBACK[key] || key;
    for (const [k, v] of Object.entries(values || {})) s = s.split(`{${k}}`).join(String(v));
    return s;
  };
  const zh = (navigator.language || "zh").toLowerCase().startsWith("zh");
  const FALLBACK = zh
    ? { big_joker: "大王", small_joker: "小王", connecting: "连接中…", reconnecting: "连接断了，正在重连…", unauthorized: "请从 Telegram 里打开牌桌。", busy: "现在查不到你是不是群成员，稍后自动重试…", error: "出错了，请重试。" }
    : { big_joker: "JOKER", small_joker: "joker", connecting: "Connecting…", reconnecting: "Connection lost, reconnecting…", unauthorized: "Please open the table from Telegram.", busy: "Your membership of the group cannot be checked just now; retrying shortly…", error: "Something went wrong, please try again." };

  // ---- theme ------------------------------------------------------------------------------
  function applyTheme() {
    let params = tg ? tg.themeParams : null;
    if (!params || !Object.keys(params).length) {
      try { params = JSON.parse(hashParams.get("tgWebAppThemeParams") || "{}"); } catch (_) { params = {}; }
    }
    const root = document.documentElement;
    for (const [key, value] of Object.entries(params || {})) {
      if (typeof value === "string" && /^#[0-9a-fA-F]{3,8}$/.test(value)) {
        root.style.setProperty(`--tg-${key.replace(/_/g, "-")}`, value);
      }
    }
    const bg = (params && params.bg_color) || "";
    const dark = tg ? tg.colorScheme === "dark" : bg && luminance(bg) < 0.4;
    root.classList.toggle("dark", Boolean(dark));
  }
  function luminance(hex) {
    const h = hex.replace("#", "");
    const full = h.length === 3 ? h.split("").map((c) => c + c).join("") : h.slice(0, 6);
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16) / 255);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }

  // ---- cards ------------------------------------------------------------------------------
  const rankOf = (code) => code >> 3;
  const suitOf = (code) => code & 7;
  function cardNode(code, mini) {
    const rank = rankOf(code);
    const node = el("span", "card" + (mini ? " mini" : ""));
    if (rank >= 16) {
      node.classList.add("joker", rank === 17 ? "large" : "small");
      const name = t(rank === 17 ? "big_joker" : "small_joker");
      node.append(el("span", "r", name));
      node.setAttribute("aria-label", name);
      return node;
    }
    const suit = suitOf(code);
    if (suit === 1 || suit === 3) node.classList.add("red");
    const label = RANKS[rank] || String(rank);
    node.append(el("span", "r", label), el("span", "s", SUITS[suit]), el("span", "big", SUITS[suit]));
    node.setAttribute("aria-label", SUITS[suit] + label);
    return node;
  }
  // the same as tableview.signature: ranks, and the one suit of a possible 同花顺
  function signature(codes, withSuits) {
    const sorted = [...codes].sort((a, b) => rankOf(a) - rankOf(b) || suitOf(a) - suitOf(b));
    const ranks = sorted.map(rankOf).join(".");
    const suits = new Set(codes.map(suitOf));
    // a 同花顺 is a run of singles: a 连对 of one suit is the same play whatever its suits
    const distinct = new Set(codes.map(rankOf)).size === codes.length;
    if (withSuits && codes.length >= FLUSH_MIN && distinct && suits.size === 1 && !suits.has(4)) {
      return `${ranks}|${[...suits][0]}`;
    }
    return ranks;
  }

  // ---- the server -------------------------------------------------------------------------
  async function post(kind, cards) {
    const response = await fetch("api/action", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `tma ${initData}` },
      body: JSON.stringify({ game: state.view ? state.view.game_id : gameId, kind, cards: cards || [] }),
    });
    let body = {};
    try { body = await response.json(); } catch (_) { body = {}; }
    if (!response.ok) throw new Error(body.error || String(response.status));
    return body;
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const path = location.pathname.replace(/[^/]*$/, "") + "api/live";
    const socket = new WebSocket(`${scheme}//${location.host}${path}`);
    state.socket = socket;
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ auth: initData, game: gameId }));
    });
    socket.addEventListener("message", (event) => {
      let data;
      try { data = JSON.parse(event.data); } catch (_) { return; }
      if (data.error) { showFatal(data.error); return; }
      state.retry = 0;
      $("banner").hidden = true;
      delete document.body.dataset.refused; // a "try again" that succeeded
      show(data);
    });
    socket.addEventListener("close", (event) => {
      if (state.socket !== socket) return;
      // refused: stay refused; but 4429 is "membership not known now": the server says try again
      const busy = event.code === 4429;
      if (event.code >= 4000 && event.code < 4500 && event.code !== 4001 && !busy) return;
      $("banner").textContent = t(busy ? "busy" : "reconnecting");
      $("banner").hidden = false;
      const wait = Math.min(5000, 500 * 2 ** state.retry++);
      setTimeout(connect, wait);
    });
  }

  function showFatal(reason) {
    const key = { "no initData": "unauthorized", "wrong hash": "unauthorized", "initData expired": "unauthorized",
      "not a member of this group": "forbidden", "no such game": "no_game", "no game": "no_game",
      "try again": "busy" }[reason] || "error";
    $("banner").textContent = t(key);
    $("banner").hidden = false;
    document.body.dataset.refused = reason;
  }

  // ---- showing a view ---------------------------------------------------------------------
  function show(view) {
    const previous = state.view;
    // a view that left the server before the one shown (a push crossing a POST's answer)
    if (previous && previous.game_id === view.game_id && view.seq < previous.seq) return;
    state.view = view;
    state.strings = view.strings || state.strings;
    gameId = String(view.game_id);
    document.documentElement.lang = view.lang === "en" ? "en" : "zh";
    const handKey = view.hand.join(",") + "|" + (view.me.legal.length ? "turn" : "");
    if (handKey !== state.handKey || !previous || previous.game_id !== view.game_id) {
      state.selected.clear();
      state.hint = -1;
    }
    state.handKey = handKey;
    state.deadline = view.seconds_left == null ? null : performance.now() + view.seconds_left * 1000;
    render();
    document.body.dataset.ready = "1";
    document.body.dataset.seq = String(view.seq);
    document.body.dataset.status = view.status;
    document.body.dataset.version = String((Number(document.body.dataset.version) || 0) + 1);
  }

  function seatName(view, index) {
    const seat = view.seats[index];
    return seat.you ? t("you") : seat.name;
  }

  function render() {
    const view = state.view;
    if (!view) return;
    document.title = `${view.variant_name} · ${t("title")}`;
    $("variant").textContent = view.variant_name;
    $("app").classList.toggle("finished", view.status === "finished");
    renderStatus(view);
    renderSeats(view);
    renderTrick(view);
    renderPanel(view);
    renderHand(view);
    renderActions(view);
    tick();
  }

  function renderStatus(view) {
    const status = $("status");
    status.classList.remove("mine");
    if (view.status === "finished") {
      status.textContent = view.result ? view.result.headline : t("result");
    } else if (view.gate) {
      status.textContent = t("gate_wait");
    } else if (view.turn != null && view.turn === view.seat && view.me.auto_pass) {
      status.textContent = t("cannot_beat");
    } else if (view.turn != null && view.turn === view.seat) {
      status.textContent = t("your_turn");
      status.classList.add("mine");
    } else if (view.turn != null) {
      status.textContent = t("waiting_for", { name: view.seats[view.turn].name });
    } else {
      status.textContent = view.seat == null ? t("spectating") : "";
    }
  }

  function renderSeats(view) {
    const box = $("seats");
    box.replaceChildren();
    const n = view.seats.length;
    const start = view.seat == null ? 0 : view.seat + 1;
    for (let k = 0; k < n; k++) {
      const index = (start + k) % n;
      if (index === view.seat) continue;
      box.append(seatNode(view, index));
    }
    if (view.seat != null) $("me-line").replaceChildren(...seatTags(view, view.seat));
    else $("me-line").replaceChildren();
  }

  function seatNode(view, index) {
    const seat = view.seats[index];
    const node = el("div", "seat");
    node.dataset.seat = String(index);
    if (seat.turn) node.classList.add("turn");
    if (seat.place) node.classList.add("out");
    node.append(el("span", "name", seat.name));
    const meta = el("div", "meta");
    meta.append(...seatTags(view, index));
    node.append(meta);
    return node;
  }

  function seatTags(view, index) {
    const seat = view.seats[index];
    const tags = [];
    if (seat.crowns) tags.push(el("span", "tag crown", t("crowns", { n: seat.crowns })));
    if (seat.computer) tags.push(el("span", "tag bot", t("computer")));
    if (seat.place) tags.push(el("span", "tag place", t(`place.${seat.place}`)));
    else tags.push(el("span", "tag count", t("cards_left", { n: seat.cards })));
    if (seat.points !== undefined) tags.push(el("span", "tag count", t("points", { n: seat.points })));
    if (seat.partner) tags.push(el("span", "tag partner", t("partner")));
    if (seat.takeover) tags.push(el("span", "tag", t("takeover")));
    if (seat.gone) tags.push(el("span", "tag", t("gone")));
    return tags;
  }

  function playNode(view, play, top) {
    const row = el("li", "play" + (play.pass ? " passed" : "") + (top ? " top" : ""));
    row.append(el("span", "who", seatName(view, play.seat)));
    const what = el("span", "what");
    if (play.pass) what.textContent = t("passed");
    else {
      for (const code of play.cards) what.append(cardNode(code, true));
      what.append(el("span", "kind", play.name));
    }
    row.append(what);
    return row;
  }

  function renderTrick(view) {
    const list = $("trick");
    list.replaceChildren();
    const topSeat = view.on_table ? view.on_table.seat : null;
    // the newest plays; the table message in the group keeps the same number
    const shown = view.trick.slice(-TRICK_SHOWN);
    if (shown.length < view.trick.length) list.append(el("li", "more", "⋯"));
    for (const play of shown) list.append(playNode(view, play, !play.pass && play.seat === topSeat));
    if (!view.trick.length) {
      const leader = view.turn != null ? seatName(view, view.turn) : "";
      list.append(el("li", "empty", leader ? t("new_trick", { name: leader }) : ""));
    }
    $("trick-points").textContent = view.trick_points ? t("trick_points", { n: view.trick_points }) : "";
    const toggle = $("last-toggle");
    toggle.textContent = state.showLast ? t("hide_last_trick") : t("last_trick");
    const last = $("last-trick");
    last.replaceChildren();
    if (state.showLast) {
      if (view.last_trick.length) for (const play of view.last_trick) last.append(playNode(view, play, false));
      else last.append(el("li", "empty", t("no_last_trick")));
    }
    last.hidden = !state.showLast;
  }

  function button(label, cls, onClick, id) {
    const node = el("button", cls, label);
    node.type = "button";
    if (id) node.id = id;
    node.addEventListener("click", onClick);
    return node;
  }

  function renderPanel(view) {
    const panel = $("panel");
    panel.replaceChildren();
    const me = view.me;
    if (view.status === "finished" && view.result) {
      panel.append(el("h2", "", view.result.headline));
      const result = el("div", "result");
      result.textContent = textOf(view.result.html);
      panel.append(result);
      if (view.next_game) {
        panel.append(wrap([button(t("to_next_game"), "primary", () => follow(view.next_game), "to-next")], true));
      } else if (view.seat != null) {
        panel.append(wrap([button(t("again"), "primary", () => act("again"), "again")], true));
      }
    } else if (me.reveal) {
      panel.append(el("div", "", t("reveal_prompt")));
      panel.append(wrap([button(t("decline"), "", () => act("decline"), "decline"),
        button(t("reveal"), "primary", () => act("reveal"), "reveal")]));
    } else if (me.ready) {
      panel.append(el("div", "", t("gate_prompt")));
      panel.append(wrap([button(t("ready"), "primary", () => act("ready"), "ready")], true));
    } else if (view.seat != null && view.seats[view.seat].takeover && view.status === "playing") {
      panel.append(el("div", "", t("takeover")));
      panel.append(wrap([button(t("takeback"), "primary", () => act("takeback"), "takeback")], true));
    }
    panel.hidden = !panel.childElementCount;
  }

  function wrap(buttons, one) {
    const box = el("div", "buttons" + (one ? " one" : ""));
    box.append(...buttons);
    return box;
  }

  function textOf(html) {
    return new DOMParser().parseFromString(html, "text/html").body.textContent || "";
  }

  function displayOrder(hand) {
    const positions = hand.map((_, i) => i);
    if (!state.bySuit) return positions;
    const suitKey = (code) => (rankOf(code) >= 16 ? 9 : suitOf(code));
    return positions.sort((a, b) => suitKey(hand[a]) - suitKey(hand[b]) || hand[a] - hand[b]);
  }

  function renderHand(view) {
    const area = $("hand-area");
    area.hidden = view.seat == null;
    $("sort").textContent = state.bySuit ? t("by_rank") : t("by_suit");
    $("sort").hidden = !view.hand.length;
    const box = $("hand");
    box.replaceChildren();
    let previousSuit = null;
    for (const position of displayOrder(view.hand)) {
      const code = view.hand[position];
      const node = cardNode(code, false);
      node.dataset.pos = String(position);
      node.setAttribute("role", "button");
      node.setAttribute("aria-pressed", state.selected.has(position) ? "true" : "false");
      if (state.selected.has(position)) node.classList.add("sel");
      const suit = rankOf(code) >= 16 ? 9 : suitOf(code);
      if (state.bySuit && previousSuit !== null && suit !== previousSuit) node.classList.add("gap");
      previousSuit = suit;
      box.append(node);
    }
  }

  function selectedCodes() {
    return [...state.selected].sort((a, b) => a - b).map((p) => state.view.hand[p]);
  }

  function matchingPlay(view) {
    const codes = selectedCodes();
    if (!codes.length) return null;
    const sig = signature(codes, view.suits_matter);
    return view.me.legal.find((play) => play.sig === sig) || null;
  }

  function renderActions(view) {
    const me = view.me;
    const myTurn = me.legal.length > 0 || me.can_pass;
    const play = $("play");
    const match = matchingPlay(view);
    if (!state.selected.size) play.textContent = t("play");
    else play.textContent = match ? t("play_named", { name: match.name }) : t("play_illegal");
    play.disabled = !myTurn || !match || state.busy;
    $("pass").textContent = t("pass");
    $("pass").disabled = !me.can_pass || state.busy;
    $("hint").textContent = t("hint");
    $("hint").disabled = !me.legal.length || state.busy;
    $("actions").hidden = view.status !== "playing" || view.gate;
  }

  function tick() {
    const clock = $("clock");
    if (state.deadline == null || !state.view || state.view.status !== "playing") {
      clock.hidden = true;
      return;
    }
    const left = Math.max(0, Math.ceil((state.deadline - performance.now()) / 1000));
    clock.textContent = t("seconds", { n: left });
    clock.classList.toggle("low", left <= 10);
    clock.hidden = false;
  }

  let toastTimer = null;
  function toast(message) {
    const node = $("toast");
    node.textContent = textOf(message);
    node.hidden = !node.textContent;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { node.hidden = true; }, 2600);
  }

  // ---- acting -----------------------------------------------------------------------------
  async function act(kind, cards) {
    if (state.busy) return;
    state.busy = true;
    renderActions(state.view);
    try {
      const body = await post(kind, cards);
      if (body.view) show(body.view);
      if (!body.accepted && body.message) toast(body.message);
      if (tg && tg.HapticFeedback) tg.HapticFeedback.notificationOccurred(body.accepted ? "success" : "error");
    } catch (error) {
      toast(t("error"));
    } finally {
      state.busy = false;
      if (state.view) renderActions(state.view);
    }
  }

  function follow(next) {
    gameId = String(next);
    state.view = null;
    state.handKey = "";
    const old = state.socket;
    state.socket = null;
    if (old) old.close();
    connect();
  }

  $("hand").addEventListener("click", (event) => {
    const node = event.target.closest(".card");
    if (!node || !state.view) return;
    const position = Number(node.dataset.pos);
    if (state.selected.has(position)) state.selected.delete(position);
    else state.selected.add(position);
    node.classList.toggle("sel");
    node.setAttribute("aria-pressed", state.selected.has(position) ? "true" : "false");
    renderActions(state.view);
  });
  $("play").addEventListener("click", () => {
    const match = state.view && matchingPlay(state.view);
    if (match) act("play", selectedCodes());
  });
  $("pass").addEventListener("click", () => act("pass"));
  $("hint").addEventListener("click", () => {
    const legal = state.view.me.legal;
    if (!legal.length) return;
    state.hint = (state.hint + 1) % legal.length;
    const wanted = [...legal[state.hint].cards];
    state.selected.clear();
    state.view.hand.forEach((code, position) => {
      const at = wanted.indexOf(code);
      if (at >= 0) { state.selected.add(position); wanted.splice(at, 1); }
    });
    renderHand(state.view);
    renderActions(state.view);
  });
  $("sort").addEventListener("click", () => {
    state.bySuit = !state.bySuit;
    render();
  });
  $("last-toggle").addEventListener("click", () => {
    state.showLast = !state.showLast;
    if (state.view) renderTrick(state.view);
  });
  setInterval(tick, 250);

  // ---- start ------------------------------------------------------------------------------
  applyTheme();
  if (tg) {
    tg.ready();
    tg.expand();
    tg.onEvent && tg.onEvent("themeChanged", applyTheme);
  }
  $("banner").textContent = t("connecting");
  $("banner").hidden = false;
  if (!initData) showFatal("no initData");
  else if (window.CardReplay && window.CardReplay.wanted(initData)) window.CardReplay.start(initData); // replay.js
  else connect();
})();
