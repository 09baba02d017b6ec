// The page's words in the installer's language. Each language is one
// catalogue, /i18n/<language>.json, served by the hub like the rest of the page. Every number,
// time, duration and plural is made by the browser's Intl for the language shown, never by hand.

export const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pl', 'pt', 'sv', 'ar'];
const RIGHT_TO_LEFT = ['ar'];
// The phone remembers the installer's choice; a language is no secret.
const CHOICE = 'panic-pair.language';

let language = 'en';
let messages = {};
let formats = null;

/** The first of the phone's languages the page has (de-AT reads German), else English. */
export function pickLanguage(stored, preferred) {
  if (LANGUAGES.includes(stored)) return stored;
  for (const tag of preferred) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

function storedChoice() {
  try { return localStorage.getItem(CHOICE); } catch { return null; }
}

export function chooseLanguage(code) {
  try { localStorage.setItem(CHOICE, code); } catch { /* private mode: chosen for this visit only */ }
}

export function currentLanguage() {
  return language;
}

/** Loads the catalogue of the language to show and sets <html lang> and dir for it. */
export async function loadLanguage() {
  language = pickLanguage(storedChoice(), navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language]);
  const response = await fetch(`/i18n/${language}.json`, { cache: 'no-cache' });
  useLanguage(language, (await response.json()).messages);
  document.documentElement.lang = language;
  document.documentElement.dir = RIGHT_TO_LEFT.includes(language) ? 'rtl' : 'ltr';
  return language;
}

/** Words and formats from here on are those of `code`, from its catalogue's messages. */
export function useLanguage(code, catalogueMessages) {
  language = code;
  messages = catalogueMessages;
  formats = makeFormats(code);
}

function makeFormats(lang) {
  const unit = (name) => new Intl.NumberFormat(lang, { style: 'unit', unit: name, unitDisplay: 'short' });
  return {
    plural: new Intl.PluralRules(lang),
    number: new Intl.NumberFormat(lang),
    percent: new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 0 }),
    relative: new Intl.RelativeTimeFormat(lang, { numeric: 'auto' }),
    time: new Intl.DateTimeFormat(lang, { timeStyle: 'short' }),
    dateTime: new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }),
    list: new Intl.ListFormat(lang, { type: 'conjunction' }),
    units: new Intl.ListFormat(lang, { type: 'unit', style: 'short' }),
    duration: typeof Intl.DurationFormat === 'function' ? new Intl.DurationFormat(lang, { style: 'short' }) : null,
    unit: { day: unit('day'), hour: unit('hour'), minute: unit('minute'), second: unit('second') },
    long: { minute: new Intl.NumberFormat(lang, { style: 'unit', unit: 'minute', unitDisplay: 'long' }), second: new Intl.NumberFormat(lang, { style: 'unit', unit: 'second', unitDisplay: 'long' }) },
  };
}

/**
 * The message `key` with its {placeholders} filled; a plural message picks the form that
 * Intl.PluralRules names for `count` in this language (Arabic has six, Polish four).
 */
export function t(key, params = {}) {
  let message = messages[key];
  if (message === undefined) return key;
  if (typeof message === 'object') message = message[formats.plural.select(Number(params.count))] ?? message.other;
  return message.replace(/\{(\w+)\}/g, (whole, name) => {
    const value = params[name];
    if (value === undefined || value === null) return whole;
    return typeof value === 'number' ? formats.number.format(value) : String(value);
  });
}

/** Whole parts of a duration as a human reads it: "45 s", "3 min", "2 h 10 min", "3 d 4 h". */
function durationParts(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return { seconds };
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return { minutes };
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? { hours } : { hours, minutes: minutes % 60 };
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? { days } : { days, hours: hours % 24 };
}

/** A duration by Intl.DurationFormat where the browser has it, else by NumberFormat's units joined by ListFormat. */
export function duration(ms) {
  const parts = durationParts(ms);
  if (formats.duration) return formats.duration.format(parts);
  const names = { days: 'day', hours: 'hour', minutes: 'minute', seconds: 'second' };
  return formats.units.format(Object.entries(parts).map(([name, value]) => formats.unit[names[name]].format(value)));
}

/** "3 minutes ago", in the largest whole unit. */
export function ago(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return formats.relative.format(-seconds, 'second');
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return formats.relative.format(-minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return formats.relative.format(-hours, 'hour');
  return formats.relative.format(-Math.floor(hours / 24), 'day');
}

/** A whole number of minutes, or of seconds, spelled out ("4 minutes", "30 seconds"). */
export function length(seconds) {
  return seconds >= 60 ? formats.long.minute.format(Math.floor(seconds / 60)) : formats.long.second.format(seconds);
}

/** The clock time of `iso`, with the date when it is not today. */
export function clock(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const today = new Date().toDateString() === date.toDateString();
  return (today ? formats.time : formats.dateTime).format(date);
}

export function dateTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : formats.dateTime.format(date);
}

export function number(value) {
  return formats.number.format(value);
}

export function percent(value) {
  return formats.percent.format(value / 100);
}

/** "A1, B2 and C3" in this language. */
export function list(items) {
  return formats.list.format(items);
}

/** "1 online, 2 missing": parts of one measure, joined as this language joins them. */
export function parts(items) {
  return formats.units.format(items);
}

/** Each element with data-i18n="key" gets its message as text; data-i18n-label as its aria-label. */
export function translatePage(root = document) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  document.title = t(document.body.classList.contains('sign-in') ? 'signIn.title' : 'app.title');
}

/** The Language control: each language by its own name; a change reloads the page in it. */
export function languageControl(select) {
  for (const code of LANGUAGES) {
    const option = document.createElement('option');
    option.value = code;
    option.lang = code;
    const name = new Intl.DisplayNames([code], { type: 'language' }).of(code) || code;
    option.textContent = name.charAt(0).toLocaleUpperCase(code) + name.slice(1);
    select.append(option);
  }
  select.value = language;
  select.addEventListener('change', () => {
    chooseLanguage(select.value);
    location.reload();
  });
}
