// Loads a game's renderer (service/web/games/<game>.js) and falls back to a generic one.

import { fallback } from "./fallback.js";

const loaded = new Map();

/** The renderer module of `game`: {renderTable, describeEvent, stylesheet?}. */
export async function rendererFor(game) {
  if (!/^[a-z_]+$/.test(game)) return fallback;
  if (!loaded.has(game)) {
    loaded.set(
      game,
      import(`./games/${game}.js`).then(
        (module) => {
          if (module.stylesheet) {
            const link = document.createElement("link");
            link.rel = "stylesheet";
            link.href = module.stylesheet;
            document.head.append(link);
          }
          return {
            renderTable: module.renderTable || fallback.renderTable,
            describeEvent: module.describeEvent || fallback.describeEvent,
          };
        },
        () => fallback,
      ),
    );
  }
  return loaded.get(game);
}

/** One event record in words, never throwing. */
export function describe(renderer, record, view) {
  try {
    const text = renderer.describeEvent(record, view);
    if (text) return text;
  } catch {
    /* the generic words below */
  }
  return fallback.describeEvent(record, view);
}
