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

/**
 * What a game's module says about the game for the lobby and the rules page, without its
 * stylesheet: `howToPlay` (paragraphs in plain words) and `options` (each option's label,
 * its values in words and a help text; the contract keeps the machine names). Empty when
 * the game has no module.
 */
export async function gameInfo(game) {
  if (!/^[a-z_]+$/.test(game)) return { howToPlay: [], options: {} };
  try {
    const module = await import(`./games/${game}.js`);
    return { howToPlay: module.howToPlay || [], options: module.options || {} };
  } catch {
    return { howToPlay: [], options: {} };
  }
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
