/**
 * A setting's value as a front end hands it over, whatever its wire form: JSON values over HTTP;
 * over gRPC a trace setting's list of strings (an empty list is `null`) or a log setting's typed
 * parameter. `null` asks for the setting to be cleared (a model's trace override, or a global
 * setting back to its default).
 */
export type SettingValue = string | number | boolean | readonly string[] | null;

export type SettingsPatch = Readonly<Record<string, SettingValue>>;
