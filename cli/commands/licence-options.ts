/** The options `stalwart licence …` and `stalwart doctor` share: which home, which service. */
import type { OptionSpec } from "../command.js";

export const homeOptions = {
  home: { type: "string", value: "DIR", help: "the home holding licence/ (default $STALWART_HOME, else ~/.stalwart)" },
  service: { type: "string", value: "URL", help: "the licence service's base URL (default $STALWART_LICENCE_URL, else the one this home activated against)" },
} satisfies Record<string, OptionSpec>;

export function serviceBase(values: { home?: string | undefined; service?: string | undefined }): { home?: string; serviceUrl?: string } {
  return {
    ...(values.home !== undefined ? { home: values.home } : {}),
    ...(values.service !== undefined ? { serviceUrl: values.service } : {}),
  };
}
