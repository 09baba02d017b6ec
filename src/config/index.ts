// The configuration module's public surface. Fast CLI commands import paths.js directly instead,
// which loads neither zod nor env-var.
export { loadConfig, type FlagValues, type LoadOptions, type RequiredSetting } from './load.js';
export type { BleMode, Config, LogLevel, MqttConfig } from './schema.js';
export { DEFAULT_PROFILE, defaultProfiles, type DeviceIdSource, type Profile, type ProfileMatch } from './profile.js';
export { describeTokenSource, readToken, type TokenSource } from './token.js';
export { SETTINGS, SETTING_KEYS, settingOf, type Setting, type SettingKey } from './settings.js';
export { controlSocketPath, controlSocketCandidates } from './paths.js';
export { Secret } from './secret.js';
export { adapterLabel, type AdapterChoice } from './adapter.js';
