// mancala-envs HTML replay: shows boards drawn in Python (one <svg> per ply), never draws one itself.
// The data is the JSON of <script id="replay-data">: {fps, games: [{title, details, plies, frames}]}, where
// frames is the gzip-compressed JSON list [{svg, facts, move}] in base64, unpacked when the game is shown.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var board = document.getElementById("board");
  var slider = document.getElementById("ply");
  var label = document.getElementById("ply-label");
  var infos = document.getElementById("infos");
  var moves = document.getElementById("moves");
  var details = document.getElementById("details");
  var playButton = document.getElementById("play");
  var picker = document.getElementById("game");
  var state = { game: 0, ply: 0, timer: null, frames: [], asked: 0 };
  var unpacked = {};

  function text(value) {
    if (value === null || value === undefined) return "none";
    if (typeof value === "object") return JSON.stringify(value);
    return String(value);
  }

  function unpack(index) {
    if (unpacked[index]) return Promise.resolve(unpacked[index]);
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser lacks DecompressionStream (Chrome 80+, Firefox 113+, Safari 16.4+)"));
    }
    var packed = atob(data.games[index].frames);
    var bytes = new Uint8Array(packed.length);
    for (var i = 0; i < packed.length; i++) bytes[i] = packed.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(function (json) {
      unpacked[index] = JSON.parse(json);
      return unpacked[index];
    });
  }

  function fillList(list, entries) {
    list.textContent = "";
    Object.keys(entries).forEach(function (name) {
      var term = document.createElement("dt");
      term.textContent = name;
      var value = document.createElement("dd");
      value.textContent = text(entries[name]);
      list.appendChild(term);
      list.appendChild(value);
    });
  }

  function show(ply) {
    var all = state.frames;
    if (!all.length) return;
    ply = Math.max(0, Math.min(all.length - 1, ply));
    state.ply = ply;
    var frame = all[ply];
    board.innerHTML = frame.svg;
    slider.value = String(ply);
    label.textContent = ply + " / " + (all.length - 1);
    document.body.dataset.ply = String(ply);
    fillList(infos, frame.facts);
    var items = moves.children;
    for (var i = 0; i < items.length; i++) {
      items[i].classList.toggle("current", i === ply);
    }
    var current = items[ply];
    if (current && current.scrollIntoView && state.timer !== null) {
      current.scrollIntoView({ block: "nearest" });
    }
    if (ply === all.length - 1) pause();
  }

  function listMoves(all) {
    moves.textContent = "";
    all.forEach(function (frame, ply) {
      var item = document.createElement("li");
      item.dataset.ply = String(ply);
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = ply === 0 ? "start" : frame.move || "ply " + ply;
      button.addEventListener("click", function () { pause(); show(ply); });
      item.appendChild(button);
      moves.appendChild(item);
    });
  }

  function choose(index) {
    pause();
    var asked = ++state.asked;
    document.body.dataset.ready = "false";
    var game = data.games[index];
    if (picker) picker.value = String(index);
    details.textContent = Object.keys(game.details)
      .map(function (name) { return name + ": " + text(game.details[name]); })
      .join(" \u00b7 ");
    unpack(index).then(function (all) {
      if (asked !== state.asked) return; // another game was chosen meanwhile
      state.game = index;
      state.frames = all;
      document.body.dataset.game = String(index);
      slider.max = String(all.length - 1);
      listMoves(all);
      show(0);
      document.body.dataset.ready = "true";
    }, function (error) {
      board.textContent = "The replay cannot be shown: " + error.message;
    });
  }

  function pause() {
    if (state.timer !== null) {
      clearInterval(state.timer);
      state.timer = null;
    }
    playButton.textContent = "play";
    document.body.dataset.playing = "false";
  }

  function play() {
    if (state.timer !== null || !state.frames.length) return;
    if (state.ply >= state.frames.length - 1) show(0);
    playButton.textContent = "pause";
    document.body.dataset.playing = "true";
    state.timer = setInterval(function () { show(state.ply + 1); }, 1000 / data.fps);
  }

  function toggle() {
    if (state.timer === null) play(); else pause();
  }

  playButton.addEventListener("click", toggle);
  document.getElementById("first").addEventListener("click", function () { pause(); show(0); });
  document.getElementById("back").addEventListener("click", function () { pause(); show(state.ply - 1); });
  document.getElementById("forward").addEventListener("click", function () { pause(); show(state.ply + 1); });
  document.getElementById("last").addEventListener("click", function () { pause(); show(state.frames.length - 1); });
  slider.addEventListener("input", function () { pause(); show(parseInt(slider.value, 10)); });
  if (picker) picker.addEventListener("change", function () { choose(parseInt(picker.value, 10)); });
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (target && (target.tagName === "SELECT" || (target.tagName === "INPUT" && target.type !== "range"))) return;
    var keys = {
      ArrowLeft: function () { pause(); show(state.ply - 1); },
      ArrowRight: function () { pause(); show(state.ply + 1); },
      Home: function () { pause(); show(0); },
      End: function () { pause(); show(state.frames.length - 1); },
      " ": toggle
    };
    var action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });
  choose(0);
})();
