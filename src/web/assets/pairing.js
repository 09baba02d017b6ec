// A pairing asked from this page, step by step, and the pairing window with its countdown and
// outcomes; the status element's data-state says the step whatever the language.
import { clear, el, $ } from './dom.js';
import { duration, list, t } from './i18n.js';

let countdown = null;

/** The window's countdown stops: it cannot be known while the page is not live. */
export function stopCountdown() {
  clearInterval(countdown);
}

const STEPS = ['waiting', 'checking', 'linking', 'linked'];

/** A pairing asked from this page that has not ended: the Pair button waits for it. */
export function pairingRuns(latest) {
  return Boolean(latest) && latest.step !== 'linked' && latest.step !== 'failed';
}

function retryText(retry) {
  return t('retry', { api: retry.api, duration: duration(Math.max(1000, retry.inMs)) });
}

export function renderPairing(pairings, live) {
  const box = clear($('pair-steps'));
  const latest = pairings[0];
  const button = $('pair-button');
  button.disabled = !live || pairingRuns(latest);
  button.textContent = pairingRuns(latest) ? t('pair.running') : t('pair.submit');
  box.dataset.state = latest ? (latest.step === 'failed' ? latest.reason || 'failure' : latest.step) : 'none';
  if (!latest) return;
  box.append(el('p', t('step.title', { device: latest.deviceId, customer: String(latest.customerId) }), 'steps-title'));
  const steps = el('ol');
  const reached = STEPS.indexOf(latest.step);
  STEPS.forEach((step, index) => {
    if (latest.step === 'failed' && index > 0) return;
    const done = index < reached || latest.step === 'linked';
    const current = index === reached && latest.step !== 'linked';
    let text = done && step === 'waiting' ? t('step.heard') : t(`step.${step}`);
    if (step === 'waiting' && current && latest.timeoutSeconds) text = t('step.waitingUpTo', { duration: duration(latest.timeoutSeconds * 1000) });
    if (step === 'linked' && latest.step === 'linked') {
      text = latest.alreadyLinked ? t('step.alreadyLinked') : latest.linkId !== undefined ? t('step.linkedId', { link: String(latest.linkId) }) : t('step.linked');
    }
    if (index > reached && latest.step !== 'linked') return;
    steps.append(el('li', `${done ? '✓' : current ? '▶' : '·'} ${text}`, done ? 'good' : current ? 'current' : ''));
  });
  // A wait through a passing API failure: the installer sees why it takes long.
  if (latest.retry && pairingRuns(latest)) steps.append(el('li', `… ${retryText(latest.retry)}`, 'wait'));
  if (latest.step === 'failed') steps.append(el('li', `✗ ${t('step.failed', { reason: t(`reason.${latest.reason || 'failure'}`) })}`, 'bad'));
  box.append(steps);
}

// "Closed: linked A1 and B2; not linked: C3." in words, not counts.
function windowResult(outcomes) {
  const names = (chosen) => list(chosen.map((outcome) => outcome.deviceId));
  const linked = outcomes.filter((outcome) => outcome.ok);
  const failed = outcomes.filter((outcome) => !outcome.ok);
  if (outcomes.length === 0) return t('window.closedNone');
  const said = [];
  if (linked.length) said.push(t('window.closedLinked', { devices: names(linked) }));
  if (failed.length) said.push(t('window.closedFailed', { devices: names(failed) }));
  return t('window.closed', { result: said.join('; ') });
}

export function renderWindow(window, live) {
  clearInterval(countdown);
  const state = $('window-state');
  const outcomes = clear($('window-outcomes'));
  const customer = window ? String(window.customerId) : '';
  state.dataset.state = !window ? 'none' : window.error ? 'failed' : window.opening ? 'opening' : window.open ? 'open' : 'closed';
  if (!window) { state.textContent = t('window.none'); return; }
  if (window.error) {
    state.textContent = `✗ ${t('window.failed', { customer, reason: t(`reason.${window.error}`) })}`;
    $('open-window').disabled = !live;
    return;
  }
  if (window.open && window.opening) {
    state.textContent = t('window.opening', { customer });
    $('open-window').disabled = true;
    return;
  }
  const endsAt = performance.now() + window.remainingMs;
  const tick = () => {
    const left = Math.max(0, Math.ceil((endsAt - performance.now()) / 1000));
    state.textContent = window.open ? t('window.openFor', { customer, left: duration(left * 1000) }) : windowResult(window.outcomes);
  };
  tick();
  if (window.open) countdown = setInterval(tick, 1000);
  for (const outcome of window.outcomes) {
    const text = outcome.ok
      ? `✓ ${outcome.linkId !== undefined ? t('window.linkedId', { device: outcome.deviceId, link: String(outcome.linkId) }) : t('window.linked', { device: outcome.deviceId })}`
      : `✗ ${outcome.deviceId}: ${t(`reason.${outcome.reason || 'failure'}`)}`;
    outcomes.append(el('li', text, outcome.ok ? 'good' : 'bad'));
  }
  for (const retry of window.retries || []) outcomes.append(el('li', `… ${retry.deviceId}: ${retryText(retry)}`, 'wait'));
  $('open-window').disabled = !live || window.open;
}
