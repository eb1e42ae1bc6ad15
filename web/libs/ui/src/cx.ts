/** Joins the class names that apply: `cx(s.option, checked && s.optionSelected)`. */
export function cx(...names: Array<string | false | null | undefined>): string {
  return names.filter(Boolean).join(' ');
}
