/**
 * `enforce` as a form: one choice per rule, off, required or recommended. A rule only finds
 * something when its attribute is set (`preserve` always is), so every rule is offered. The
 * choices are cells of the surrounding group, laid out like the other fields.
 */
import { RULE_IDS, type RuleSetting, ruleName, ruleSetting, withRuleSetting } from '../personas/rules.js';

const CHOICES: { value: RuleSetting; label: string }[] = [
  { value: 'required', label: 'Required: a finding fails the check' },
  { value: 'recommended', label: 'Recommended: a finding only lowers the score' },
  { value: 'off', label: 'Off: not checked after writing' },
];

interface RuleSettingsFieldProps {
  value: unknown;
  onChange: (value: Record<string, unknown> | undefined) => void;
}

export function RuleSettingsField({ value, onChange }: RuleSettingsFieldProps) {
  return (
    <>
      {RULE_IDS.map((rule) => {
        const id = `enforce-${rule}`;
        return (
          <div key={rule} class="field">
            <label for={id}>
              {ruleName(rule)} <code>{rule}</code>
            </label>
            <select id={id} value={ruleSetting(value, rule)} onChange={(event) => onChange(withRuleSetting(value, rule, event.currentTarget.value as RuleSetting))}>
              {CHOICES.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.label}
                </option>
              ))}
            </select>
          </div>
        );
      })}
    </>
  );
}
