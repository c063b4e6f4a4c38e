// mancala-envs serve: the page. It asks the app's JSON API (mancala_envs/web/app.py) and shows its answers:
// the board (SVG drawn by the server, legal pits ringed), the legal moves, the messages, the result.
// No framework, nothing fetched but the app's own API.
"use strict";

const $ = (id) => document.getElementById(id);
let current = null; // the last answer about the game in play
let answers = 0; // how many answers were shown (the tests wait on body[data-answers])

async function api(method, path, body) {
  const request = { method, headers: { "Content-Type": "application/json" } };
  if (body !== undefined) request.body = JSON.stringify(body);
  const response = await fetch(path, request);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
  return data;
}

function setBusy(busy) {
  document.body.dataset.busy = busy ? "true" : "false";
  for (const button of document.querySelectorAll("button")) {
    if (busy) button.disabled = true;
  }
  if (!busy) {
    $("start").disabled = false;
    for (const button of document.querySelectorAll("#moves button, #choices button")) button.disabled = false;
    $("undo").disabled = !(current && current.can_undo);
  }
}

// Runs one request; shows its answer, or its error (the game is unchanged then).
async function run(work) {
  if (document.body.dataset.busy === "true") return;
  setBusy(true);
  $("error").textContent = "";
  try {
    show(await work());
  } catch (error) {
    $("error").textContent = error.message;
  } finally {
    setBusy(false);
    answers += 1;
    document.body.dataset.answers = String(answers);
  }
}

function button(text, onClick, data) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = text;
  for (const [key, value] of Object.entries(data || {})) element.dataset[key] = String(value);
  element.addEventListener("click", onClick);
  return element;
}

function show(answer) {
  current = answer;
  document.body.dataset.ply = String(answer.ply);
  document.body.dataset.over = String(answer.over);
  $("opening").textContent = answer.opening;
  $("board").innerHTML = answer.board;
  $("prompt").textContent = answer.prompt || (answer.over ? "" : `${answer.opponent} is thinking...`);
  $("choices").replaceChildren();
  $("moves").replaceChildren(
    ...answer.legal.map((move) => button(move.words, () => play(move.action), { action: move.action, pit: move.pit })),
  );
  $("result").textContent = answer.result || "";
  const log = $("log");
  log.replaceChildren();
  answer.log.forEach((message, index) => {
    const item = document.createElement("li");
    item.textContent = message;
    if (index >= answer.log.length - answer.messages.length) item.className = "new";
    log.appendChild(item);
  });
  if (answer.result) {
    const item = document.createElement("li");
    item.textContent = answer.result;
    item.className = "new result";
    log.appendChild(item);
  }
  log.scrollTop = log.scrollHeight;
}

// A click on a ringed pit: its move, or (several actions on one pit: a direction, a mid-turn choice) the choices.
function pickPit(pit) {
  if (!current) return;
  const moves = current.legal.filter((move) => move.pit === pit);
  if (moves.length === 1) {
    play(moves[0].action);
    return;
  }
  for (const group of document.querySelectorAll("#board g.pit.chosen")) group.classList.remove("chosen");
  const group = document.querySelector(`#board g.pit[data-pit="${pit}"]`);
  if (group) group.classList.add("chosen");
  $("choices").replaceChildren(
    ...moves.map((move) => button(move.words, () => play(move.action), { action: move.action, pit: move.pit })),
  );
}

function play(action) {
  run(() => api("POST", `/api/games/${current.id}/move`, { action }));
}

// "first_player=0, setup=placement" -> {first_player: 0, setup: "placement"} (values read as JSON when they are).
function parseOptions(text) {
  const options = {};
  for (const part of text.split(/[,\s]+/).filter(Boolean)) {
    const [key, ...rest] = part.split("=");
    if (!key || rest.length === 0) throw new Error(`invalid option '${part}' (use key=value, as in first_player=0)`);
    const value = rest.join("=");
    try {
      options[key] = JSON.parse(value);
    } catch (error) {
      options[key] = value;
    }
  }
  return options;
}

function newGame(event) {
  if (event) event.preventDefault();
  run(async () => {
    const seat = $("seat").value;
    const request = {
      game: $("game").value,
      opponent: $("opponent").value.trim(),
      seat: seat === "random" ? "random" : Number(seat),
      seed: Number($("seed").value || "0"),
      options: parseOptions($("options").value),
    };
    const position = $("position").value.trim();
    if (position) request.position = position;
    return api("POST", "/api/games", request);
  });
}

async function loadCatalog() {
  const catalog = await api("GET", "/api/catalog");
  const games = $("game");
  for (const game of catalog.games) {
    const option = document.createElement("option");
    option.value = game.id;
    option.textContent = `${game.id}: ${game.description}`;
    games.appendChild(option);
  }
  for (const name of catalog.agents) {
    const option = document.createElement("option");
    option.value = name;
    $("agents").appendChild(option);
  }
  // The address may preset the form: /?game=mancala/omweso-v0&opponent=random&seat=1&seed=3&position=...
  const preset = new URLSearchParams(window.location.search);
  games.value = preset.get("game") || catalog.default_game;
  $("opponent").value = preset.get("opponent") || catalog.default_opponent;
  for (const field of ["seat", "seed", "options", "position"]) {
    if (preset.has(field)) $(field).value = preset.get(field);
  }
}

$("new-game").addEventListener("submit", newGame);
$("undo").addEventListener("click", () => run(() => api("POST", `/api/games/${current.id}/undo`)));
$("board").addEventListener("click", (event) => {
  const group = event.target.closest("g.pit");
  if (group && group.classList.contains("legal") && document.body.dataset.busy !== "true") {
    pickPit(Number(group.dataset.pit));
  }
});
loadCatalog().then(
  () => {
    document.body.dataset.ready = "true";
  },
  (error) => {
    $("error").textContent = `Could not load the games: ${error.message}`;
  },
);
