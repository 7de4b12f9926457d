import { useState } from 'preact/hooks';
import { Field, valueOf } from './ui.js';

/**
 * A new password typed twice (the set-password link and the account's change of password): the
 * rules said before they are broken, a mismatch said at once. `ok` is false until both agree.
 */
export function useNewPassword() {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const mismatch = again.length > 0 && again !== password;
  const fields = (
    <>
      <PasswordField
        id="new-password"
        label="New password"
        hint="At least 12 characters; a few words you can remember work well."
        autoComplete="new-password"
        minLength={12}
        value={password}
        onInput={setPassword}
      />
      <PasswordField
        id="again"
        label="The same password again"
        autoComplete="new-password"
        invalid={mismatch}
        value={again}
        onInput={setAgain}
      />
      {mismatch && (
        <p class="field-error" role="alert">
          The two passwords differ.
        </p>
      )}
    </>
  );
  return {
    password,
    mismatch,
    fields,
    reset: () => {
      setPassword('');
      setAgain('');
    },
  };
}

/** A labelled password box: the browser's password manager told which password it is (`autoComplete`). */
export function PasswordField(props: {
  id: string;
  label: string;
  autoComplete: 'current-password' | 'new-password';
  value: string;
  onInput: (value: string) => void;
  hint?: string;
  minLength?: number;
  invalid?: boolean;
}) {
  return (
    <Field id={props.id} label={props.label} hint={props.hint}>
      <input
        id={props.id}
        type="password"
        autoComplete={props.autoComplete}
        required
        minLength={props.minLength}
        maxLength={200}
        aria-describedby={props.hint ? `${props.id}-hint` : undefined}
        aria-invalid={props.invalid}
        value={props.value}
        onInput={(e) => props.onInput(valueOf(e))}
      />
    </Field>
  );
}
