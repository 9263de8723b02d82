"""conflictbase: what the "installed together" test plugins share.

Three plugins that each pass the suite alone but break each other when
installed together (docs/host.md "Plugins in the wild": "A shared staging
directory", "Plugins installed together"; "The host finds an agent by its
`type` too"). They are the conforming base of ../wild/wildbase.py with:

- a session directory of the official template, <repo>/.entire/tmp
  (stagea, stageb), or the base's own under HOME (sweeper);
- hooks (stagea, sweeper) installed into one file both write,
  $ENTIRE_REPO_ROOT/.agents/hooks.json, with the guide's Claude Code
  shaped payloads (`session_id`, `transcript_path`, `prompt`): session-start
  1, user-prompt-submit 2, stop 3, session-end 5. A payload without a
  session id, or a turn without a transcript path, gives `null`.

Standard library only; Python 3.9+.
"""

import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "wild"))

import wildbase as w  # noqa: E402,F401 - re-exported for the plugins

HOOKS = [
    ("session-start", "SessionStart", w.SESSION_START),
    ("user-prompt-submit", "UserPromptSubmit", w.TURN_START),
    ("stop", "Stop", w.TURN_END),
    ("session-end", "SessionEnd", w.SESSION_END),
]


class Staging(w.Plugin):
    """Sessions under the template's <repo>/.entire/tmp."""

    def session_dir(self, repo_path):
        return os.path.join(os.path.abspath(repo_path), ".entire", "tmp")


class SharedHooks(w.Plugin):
    """Hooks in <repo>/.agents/hooks.json, a file another agent shares."""

    capabilities = {"hooks": True}
    hooks = HOOKS

    @property
    def config_dir(self):
        return ".agents"

    def cmd_parse_hook(self, args):
        flags = self.flags(args, ("hook",), required=("hook",))
        event_type = {h[0]: h[2] for h in self.hooks}.get(flags["hook"])
        data = w.read_stdin()
        if event_type is None:
            w.write_json(None)  # not a hook of ours
            return
        if not data.strip():
            raise w.PluginError("empty hook input")
        what = "hook payload"
        payload = w.parse_json_object(data, what)
        session_id = w.get_str(payload, "session_id", what)
        transcript = w.get_str(payload, "transcript_path", what)
        prompt = w.get_str(payload, "prompt", what)
        if not session_id:
            w.write_json(None)  # nothing to attach the event to
            return
        event = {"type": event_type, "session_id": session_id, "timestamp": w.now_rfc3339()}
        if event_type in (w.TURN_START, w.TURN_END):
            if not transcript:
                w.write_json(None)  # the host needs the transcript of a turn
                return
            event["session_ref"] = transcript
        if event_type == w.TURN_START and prompt:
            event["prompt"] = prompt
        w.write_json(event)
