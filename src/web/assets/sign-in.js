// The sign-in page in the phone's language: its words and the Language control. Without this
// script the form still works, in English.
import { languageControl, loadLanguage, translatePage } from './i18n.js';

await loadLanguage();
translatePage();
languageControl(document.getElementById('language'));
