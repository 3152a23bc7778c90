"""Apply one-line mutations of the package, one at a time, and check a test kills each.

Run on demand, not in CI (it takes a few minutes)::

    python scripts/mutate.py                 # every mutation
    python scripts/mutate.py --list          # names, files and killing tests
    python scripts/mutate.py round-cap-off-by-one offline-one-call-per-round

Each mutation is a file, an exact snippet of it, its replacement, the test node ids that
should kill it and one line saying why it matters. The snippet must occur exactly once in
the file: after a refactor the script says "snippet not found" (a failure) instead of
silently mutating nothing. The repository is copied into a temporary directory once;
each mutation is applied to that copy (the file is restored in ``finally``), and its
killing tests run there with ``pytest -x -q`` and ``PYTHONPATH`` pointing at the copy.
The working tree is never edited. Exit status 1 when any mutation survives or cannot be
applied. The table is docs/testing.md's, "Mutations".
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "openprogram_jupyter"
COPIED = ("openprogram_jupyter", "tests", "docs", "notebooks", "pyproject.toml", "README.md", "bench", "scripts")


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # relative to openprogram_jupyter/
    original: str
    replacement: str
    tests: tuple[str, ...]
    why: str


M = Mutation
MUTATIONS: tuple[Mutation, ...] = (
    # -- the audit's kinds of core rule (its two survivors first) -------------------------
    M(
        "magics-redraw-rate",
        "jupyter/_magics.py",
        "updates_per_second = Float(10.0,",
        "updates_per_second = Float(30.0,",
        ("tests/notebook/test_magic_in_process.py::test_the_live_view_redraws_at_the_configured_rate",),
        "the rate %%agent actually redraws at (10/s per widget) is what the docs promise",
    ),
    M(
        "offline-one-call-per-round",
        "models/offline.py",
        "to_call = to_call[:1]",
        "to_call = to_call[:2]",
        ("tests/core/test_runtime_api.py::test_offline_model_makes_one_call_per_round_when_parallel_calls_are_off",),
        "parallel_tool_calls=False means one call a round, the offline model included",
    ),
    M(
        "anthropic-tool-description",
        "models/anthropic.py",
        '"description": spec.get("description") or "",',
        '"description": "",',
        ("tests/decisions/test_provider_schemas.py::test_shown_declaration_is_exactly_what_the_provider_client_sends",),
        "Anthropic must be told what a tool does",
    ),
    M(
        "view-throttle-interval",
        "jupyter/_view.py",
        "now - self._last_tick < 1.0 / self.max_hz",
        "now - self._last_tick < 0.5 / self.max_hz",
        ("tests/widgets/test_view.py::test_throttle_redraws_only_once_a_full_interval_has_passed",),
        "each widget sends at most max_hz updates a second",
    ),
    M(
        "round-cap-stop-reason",
        "engine/loop.py",
        "    state.end(limit.name)\n",
        '    state.end("stop")\n',
        ("tests/core/test_menu_and_controls.py::test_max_iterations_caps_rounds_and_says_so",),
        "a run cut by its round cap must say so, not claim it finished",
    ),
    M(
        "round-cap-off-by-one",
        "engine/_limits.py",
        "rounds >= max(1, cap)",
        "rounds > max(1, cap)",
        ("tests/core/test_menu_and_controls.py::test_max_iterations_caps_rounds_and_says_so",),
        "max_iterations=N allows N rounds, not N + 1",
    ),
    M(
        "answer-round-added-after-the-cap",
        "engine/loop.py",
        'answer=has_more_tool_calls and limit.name != "max_iterations"',
        "answer=has_more_tool_calls",
        ("tests/core/test_limits.py::test_a_round_cap_of_one_round_keeps_its_tools",),
        "a cap of N sends N requests: after the cap's last round comes no answer round",
    ),
    M(
        "answer-round-dropped-at-the-cap",
        "engine/loop.py",
        "last = answer_round_under_cap(config.spec.settings, state.rounds) if has_more_tool_calls else None",
        "last = None",
        ("tests/core/test_limits.py::test_a_round_cap_of_n_sends_exactly_n_requests_the_last_without_tools",),
        "a run cut by its round cap still ends with an answer: round N is tool-free",
    ),
    M(
        "answer-round-in-a-one-round-cap",
        "engine/_limits.py",
        "cap is None or cap < 2 or rounds + 1 != cap",
        "cap is None or rounds + 1 != cap",
        ("tests/core/test_limits.py::test_a_round_cap_of_one_round_keeps_its_tools",),
        "a run capped at one round keeps its tools in that round",
    ),
    M(
        "cell-cap-zero-is-no-cap",
        "engine/_setting_flags.py",
        'if text.lower() in ("none", "inf", "unlimited"):',
        'if text.lower() in ("none", "0", "inf", "unlimited"):',
        ("tests/notebook/test_magic_in_process.py::test_max_iterations_in_a_cell_means_what_it_means_in_python",),
        "--max-iterations 0 in a cell means what max_iterations=0 means in Python: one round",
    ),
    M(
        "arguments-not-validated",
        "engine/tool_execution.py",
        "kwargs = tool.validate(dict(call.arguments))",
        "kwargs = dict(call.arguments)",
        ("tests/core/test_loop_rules.py::test_invalid_arguments_become_error_result_naming_field_and_reason",),
        "a tool body never runs with arguments its schema refuses",
    ),
    M(
        "not-done-is-not-error",
        "engine/tool_execution.py",
        'is_error=outcome.status != "done",',
        'is_error=outcome.status == "error",',
        ("tests/core/test_step_mode.py::test_every_pick_asks_and_each_answer_does_what_it_says",),
        "a denied, skipped or cancelled call is an error result for the model",
    ),
    M(
        "approval-not-required",
        "engine/_approval_gate.py",
        "asks = step or tool.options.requires_approval",
        "asks = step",
        ("tests/core/test_step_mode.py::test_a_requires_approval_tool_outside_step_mode_accepts_the_same_answers",),
        "requires_approval=True tools never run unasked",
    ),
    M(
        "denial-ignored",
        "engine/_approval_gate.py",
        'if kind == "deny":',
        "if False:",
        ("tests/core/test_step_mode.py::test_every_pick_asks_and_each_answer_does_what_it_says",),
        "an approver's no stops the call",
    ),
    M(
        "typed-box-never-renewed",
        "jupyter/_typed_box.py",
        "            self._stale = True\n        if self._on_text",
        "            self._stale = False\n        if self._on_text",
        ("tests/widgets/test_typed_box.py::test_a_box_that_delivered_a_text_is_replaced_by_a_fresh_one_holding_it",),
        "a box that has sent its text is replaced, or the next text typed while the cell runs never arrives",
    ),
    M(
        "typed-box-stale-text",
        "jupyter/_typed_box.py",
        '            if change["owner"] is not self._box:\n                return',
        "            if False:\n                return",
        ("tests/widgets/test_typed_box.py::test_a_text_from_a_box_already_replaced_is_ignored",),
        "a late update from a box no longer on screen does not overwrite what the person typed since",
    ),
    M(
        "typed-box-per-key",
        "jupyter/_typed_box.py",
        "value=value, continuous_update=False,",
        "value=value, continuous_update=True,",
        ("tests/widgets/test_typed_box.py::test_a_box_sends_once_on_enter_or_leaving_not_per_key",),
        "a box syncing each key delivers the first character only while the cell runs",
    ),
    M(
        "typed-box-retired-left-open",
        "jupyter/_typed_box.py",
        "        for box in retired:\n            self._close(box)",
        "        for box in retired:\n            pass",
        ("tests/widgets/test_typed_box.py::test_a_box_that_delivered_a_text_is_replaced_by_a_fresh_one_holding_it",),
        "replaced boxes are closed, or every text typed leaves a widget open for the rest of the kernel",
    ),
    M(
        "step-buttons-answer-whatever-is-shown",
        "jupyter/_step_card.py",
        "lambda: StepControls(view, call))",
        'lambda: StepControls(view, call), pool="step")',
        (
            "tests/widgets/test_view_step_mode.py::test_a_second_click_on_an_answered_calls_button_never_answers_the_next_call",
        ),
        "a double click on Run never runs the next pick unseen (controls are never reused for another call)",
    ),
    M(
        "approve-buttons-answer-whatever-is-shown",
        "jupyter/_call_card.py",
        "lambda: _approval_row(view, call))",
        'lambda: _approval_row(view, call), pool="approval")',
        (
            "tests/widgets/test_view_step_mode.py::test_a_second_click_on_an_answered_calls_button_never_answers_the_next_call",
        ),
        "a double click on Approve never approves the next call unseen (buttons are never reused for another call)",
    ),
    M(
        "approval-by-truth",
        "core/approvals.py",
        "if answer is True:",
        "if answer and not isinstance(answer, (Edit, Skip)):",
        (
            "tests/core/test_step_mode.py::test_an_answer_that_is_not_true_false_edit_or_skip_never_runs_the_call_and_names_the_answer",
        ),
        'an approver answering "no" (or op.skip uncalled) never runs a call that needs approval',
    ),
    M(
        "result-not-masked",
        "core/_masking.py",
        "            block.text = valid_text(mask(block.text))",
        "            block.text = valid_text(block.text)",
        (
            "tests/core/test_secrets.py::test_a_tool_error_quoting_a_key_variable_is_masked_for_the_model_and_everywhere",
        ),
        "a tool result holding a known secret never reaches the record unmasked",
    ),
    M(
        "long-result-not-cut",
        "tools/results.py",
        "if max_chars is not None and len(text) > max_chars:",
        "if False:",
        ("tests/tools/test_results.py::test_ten_megabyte_string_is_cut_keeping_head_and_tail_with_a_marker",),
        "results past max_result_chars are cut before the model reads them",
    ),
    M(
        "history-reversed",
        "engine/execute.py",
        "LoopState(conversation=list(spec.history))",
        "LoopState(conversation=list(reversed(spec.history)))",
        ("tests/notebook/test_magic_in_process.py::test_sessions_continue_a_conversation_and_new_restarts_it",),
        "a session's earlier conversation is sent in the order it happened",
    ),
    M(
        "identical-failures-off-by-one",
        "engine/tool_execution.py",
        "if failed >= MAX_IDENTICAL_FAILURES:",
        "if failed > MAX_IDENTICAL_FAILURES:",
        ("tests/core/test_loop_rules.py::test_same_failing_call_a_third_time_is_refused",),
        "the same failing call is refused after MAX_IDENTICAL_FAILURES tries, not one more",
    ),
    M(
        "abort-stop-reason",
        "engine/loop.py",
        '        _end_round(config, state, last)\n    state.end("aborted")',
        '        _end_round(config, state, last)\n    state.end("stop")',
        ("tests/core/test_steering_and_abort.py::test_run_handle_abort_stops_a_running_tool_and_keeps_the_run",),
        "a stopped run says it was aborted",
    ),
    # -- ten more -------------------------------------------------------------------------
    M(
        "tool-call-budget-ignored",
        "engine/tool_execution.py",
        "if not env.budget.take():",
        "if False:",
        ("tests/core/test_faults.py::test_the_default_budget_is_sized_for_real_runs_and_can_be_lifted",),
        "max_tool_calls refuses the calls past the budget",
    ),
    M(
        "no-final-round-at-limit",
        "engine/loop.py",
        'if answer and config.spec.settings["finish_at_limit"]:',
        "if False:",
        ("tests/core/test_limits.py::test_max_cost_ends_with_a_last_tool_free_round_whose_text_is_the_answer",),
        "finish_at_limit gives the model one tool-free round to answer",
    ),
    M(
        "token-limit-off-by-one",
        "engine/_limits.py",
        "tokens >= max_tokens",
        "tokens > max_tokens",
        ("tests/core/test_limits.py::test_max_tokens_is_reached_when_the_tokens_spent_equal_it",),
        "max_tokens is reached when the tokens spent are at least it",
    ),
    M(
        "skip-becomes-denied",
        "engine/_approval_gate.py",
        '"skipped", f"{reason}. The call did not run."',
        '"denied", f"{reason}. The call did not run."',
        ("tests/core/test_step_mode.py::test_every_pick_asks_and_each_answer_does_what_it_says",),
        "op.skip is recorded as skipped, not as a denial",
    ),
    M(
        "edit-note-dropped",
        "engine/tool_execution.py",
        'content = _with_edit_note(content, outcome.details["edited_arguments"])',
        "content = content",
        ("tests/core/test_step_mode.py::test_an_edited_call_keeps_the_models_message_and_tells_the_model_what_ran",),
        "the model is told the user changed its arguments",
    ),
    M(
        "offline-ignores-tool-choice-none",
        "models/offline.py",
        'if request.tool_choice == "none" or not request.menu_explicit',
        "if not request.menu_explicit",
        ("tests/core/test_runtime_api.py::test_offline_model_calls_nothing_when_tool_choice_is_none",),
        "tool_choice='none' (the last round at a limit) means no calls, offline too",
    ),
    M(
        "bedrock-empty-description",
        "models/_bedrock_controls.py",
        '"description": spec.get("description") or spec["name"]})',
        '"description": spec.get("description") or ""})',
        (
            "tests/decisions/test_provider_schemas.py::test_bedrock_declaration_of_a_tool_without_description_uses_its_name",
        ),
        "Bedrock refuses an empty description",
    ),
    M(
        "view-cut-not-masked",
        "render/_format.py",
        "    masked, end = Secrets.now().mask_start(text, limit)\n",
        "    masked, end = text, len(text)\n",
        ("tests/widgets/test_view_secrets.py::test_a_cut_never_leaves_part_of_a_secret",),
        "a cut never leaves part of a secret on screen",
    ),
    M(
        "steering-not-taken",
        "engine/loop.py",
        '                pending = _take(config.spec.hooks.get("get_steering_messages"))',
        "                pending = []",
        ("tests/core/test_steering_and_abort.py::test_steering_keeps_the_loop_going_after_a_text_only_reply",),
        "a steering message after a text-only reply starts another round",
    ),
    M(
        "follow-up-not-taken",
        "engine/loop.py",
        'pending = _take(config.spec.hooks.get("get_follow_up_messages"))',
        "pending = []",
        ("tests/core/test_steering_and_abort.py::test_run_handle_follow_up_starts_another_round",),
        "a follow-up starts another round when the loop would end",
    ),
    # -- the newer modules (issue 26, and what this round added) ---------------------------
    M(
        "to-code-comment-unescaped",
        "core/_code_writer.py",
        'return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)',
        "return text",
        ("tests/core/test_check_and_code.py::test_to_code_of_hostile_names_and_errors_calls_only_the_runs_own_tools",),
        "a tool error or a model-chosen name with a line break never becomes code in %agent code's cell",
    ),
    M(
        "to-code-unmasked",
        "core/_code_writer.py",
        "        return self._scrub(value)",
        "        return value",
        ("tests/core/test_check_and_code.py::test_to_code_masks_a_known_key_in_arguments_and_errors",),
        "a known key never lands in a generated cell",
    ),
    M(
        "to-code-denied-pick-called",
        "engine/_run_code.py",
        'if status != "done":',
        'if status == "error":',
        ("tests/core/test_check_and_code.py::test_to_code_comments_picks_that_did_not_run_and_uses_what_the_user_ran",),
        "a pick the user skipped or denied is a comment, never a call",
    ),
    M(
        "check-message-unmasked",
        "lab/check.py",
        "raise CheckFailed(mask(",
        "raise CheckFailed((",
        (
            "tests/core/test_check_and_code.py::test_a_failing_check_masks_a_known_key_and_shows_in_ipython_as_its_message_alone",
        ),
        "a failing check's message (saved in the notebook) holds no known key",
    ),
    M(
        "check-ok-counts-any-pick",
        "lab/check.py",
        'return self.result is not None and self.result.status == "done"',
        "return self.result is not None",
        (
            "tests/core/test_check_and_code.py::test_ok_counts_only_picks_that_ran_and_a_denied_pick_still_counts_as_called",
        ),
        "ok=True counts only picks that ran and returned, not denied ones",
    ),
    M(
        "expect-none-fails",
        "lab/evaluation/_grading.py",
        "if answer is not None and not answer:",
        "if not answer:",
        ("tests/evaluation/test_evaluate.py::test_an_expect_that_only_asserts_passes_when_its_asserts_hold",),
        "an expect that returns None (asserts only) passes its row",
    ),
    M(
        "judging-interrupt-loses-rows",
        "lab/evaluation/__init__.py",
        'if row.number not in graded and row.verdict == "pass":',
        "if False:",
        ("tests/evaluation/test_evaluate.py::test_an_interrupt_while_expect_judges_keeps_every_finished_run",),
        "rows an interrupt left unjudged say so instead of passing",
    ),
    M(
        "restore-negative-history",
        "jupyter/_saved_runs.py",
        "history_length: Annotated[StrictInt, Field(ge=0)] = 0",
        "history_length: StrictInt = 0",
        (
            "tests/notebook/test_restore_untrusted.py::test_a_saved_run_that_does_not_fit_is_refused_naming_its_cell_and_field",
        ),
        "a tampered notebook's negative history length never deletes a session's messages",
    ),
    M(
        "restore-by-start-time",
        "jupyter/_saved_runs.py",
        "key=lambda r: (r.appended_at, r.started_at)",
        "key=lambda r: (r.started_at, r.appended_at)",
        (
            "tests/notebook/test_restore_untrusted.py::test_two_background_runs_on_one_session_come_back_one_after_the_other",
        ),
        "two background runs on one session are restored where the session put them",
    ),
    M(
        "split-secret-unmarked",
        "core/_secrets.py",
        "                hidden[start] = 2",
        "                hidden[start] = 1",
        (
            "tests/providers/test_provider_wire.py::test_a_key_the_model_streams_back_in_pieces_is_masked_across_the_frames",
        ),
        "a key cut across frames reads *** where it began, so the reader sees something was masked",
    ),
    M(
        "split-secret-unmasked",
        "models/_wire.py",
        "        if len(places) > 1:",
        "        if len(places) > 10_000:",
        (
            "tests/providers/test_provider_wire.py::test_a_key_the_model_streams_back_in_pieces_is_masked_across_the_frames",
        ),
        "joining the deltas of run.wire(n)'s frames never gives a key back",
    ),
    M(
        "thread-exception-unwrapped",
        "tools/base.py",
        'outcome: tuple[str, Any] = ("set_exception", ToolExit(error))',
        'outcome: tuple[str, Any] = ("set_exception", error)',
        ("tests/core/test_faults.py::test_whatever_a_tool_raises_is_that_calls_error_and_the_run_goes_on",),
        "a sync tool raising StopIteration (or any BaseException) settles its call instead of hanging the run",
    ),
    M(
        "tool-cancellation-is-stop",
        "engine/tool_execution.py",
        "        if context.cancelled.is_set():\n            raise",
        "        if True:\n            raise",
        ("tests/core/test_faults.py::test_a_cancelled_subtask_inside_a_tool_fails_that_call_and_is_no_stop",),
        "a tool's own cancelled sub-task fails its call; only the user's Stop stops the run",
    ),
    M(
        "unknown-host-retried",
        "models/_provider_errors.py",
        "error.errno == socket.EAI_NONAME:",
        "error.errno == socket.EAI_AGAIN:",
        (
            "tests/providers/test_provider_common.py::test_a_host_the_resolver_says_does_not_exist_is_not_retried_but_one_it_could_not_look_up_is",
        ),
        "a host that does not exist fails at once; one the resolver could not look up is retried",
    ),
    M(
        "usage-total-not-summed",
        "engine/run.py",
        "self._usage = self._usage + event.message.usage",
        "self._usage = event.message.usage",
        (
            "tests/core/test_runtime_api.py::test_run_usage_is_a_running_total_of_every_reply_and_never_rescans_the_events",
        ),
        "run.usage sums every reply (budgets read it every round)",
    ),
    M(
        "rerun-cell-not-rewound",
        "jupyter/_magics.py",
        "            model.rewind(starts[cell])",
        "            model.rewind(model.position)",
        ("tests/notebook/test_magic_in_process.py::test_running_a_scripted_cell_again_replays_its_rounds",),
        "running a cell again replays its scripted rounds instead of running out of script",
    ),
    M(
        "mcp-credentials-unknown",
        "tools/mcp_source.py",
        "remember(*(env or {}).values(), *(headers or {}).values(), *_credentials_in(headers))",
        "remember()",
        ("tests/tool_sources/test_mcp_tools.py::test_a_token_handed_to_a_server_is_masked_when_the_server_echoes_it",),
        "a token handed to an MCP server is masked when the server echoes it",
    ),
    M(
        "replaced-key-forgotten",
        "core/_key_sources.py",
        "remember(value, os.environ.get(variable))",
        "remember(value)",
        ("tests/core/test_secrets.py::test_a_key_replaced_with_agent_key_stays_masked",),
        "a key replaced with %agent key stays masked for the rest of the kernel",
    ),
    M(
        "streaming-arguments-show-key-prefix",
        "jupyter/_call_card.py",
        "    return text[: len(text) - view.pool.secrets.open_prefix(text)]",
        "    return text",
        ("tests/widgets/test_view.py::test_arguments_streaming_in_never_show_a_growing_prefix_of_a_known_key",),
        "arguments streaming into a card never show a growing prefix of a known key",
    ),
    M(
        "offline-range-end-ignored",
        "tools/prompt_arguments.py",
        'lone_number = sum(sub.get("type") in ("integer", "number") for sub in properties.values()) == 1',
        'lone_number = sum(sub.get("type") in ("integer", "number") for sub in properties.values()) == 2',
        ("tests/tools/test_prompt_arguments.py::test_a_lone_number_parameter_takes_the_end_of_a_stated_range",),
        "'the squares of 0 to 5' calls plot_squares(n=5), not n=0",
    ),
    M(
        "decision-error-wrapped",
        "engine/_decision_judge.py",
        "            raise wrapped.original from None",
        "            raise",
        ("tests/decisions/test_option_shapes.py::test_exception_raised_by_a_picked_function_reaches_the_caller",),
        "a picked option's own exception reaches the caller as itself",
    ),
    M(
        "deep-arguments-unsaved",
        "core/messages.py",
        '        return message.model_dump(mode="json")\n    except (ValueError, RecursionError):\n        pass',
        '        return message.model_dump(mode="json")\n    except (ValueError, RecursionError):\n        raise',
        (
            "tests/replay/test_record_and_replay.py::test_arguments_nested_past_what_can_be_serialised_are_cut_when_saved_and_the_run_is_saved",
        ),
        "a reply nested past pydantic's depth is still saved (cut, saying so)",
    ),
    M(
        "mcp-names-collapse",
        "tools/_mcp_listing.py",
        "        while name in taken:",
        "        while False:",
        (
            "tests/tool_sources/test_mcp_tools.py::test_names_that_clash_once_made_valid_are_kept_apart_and_every_name_fits_every_provider",
        ),
        "two remote tools whose names clash once made valid both stay callable",
    ),
    M(
        "unanswering-server-waited-on",
        "tools/_mcp_connection.py",
        "        if self._client is None and not self._session.done():",
        "        if False:",
        (
            "tests/tool_sources/test_mcp_tools.py::test_a_server_that_never_answers_is_given_up_on_time_and_its_process_ended",
        ),
        "connect_timeout holds for a server that never answers the handshake",
    ),
    M(
        "hermes-rescans",
        "models/_text_tool_calls.py",
        "            return  # no closing tag after this one: none after any later opening tag either",
        "            start = text.find(_OPEN, start + 1)\n            continue",
        ("tests/providers/test_text_tool_calls.py::test_unclosed_tags_are_read_in_one_pass_not_once_per_tag",),
        "a reply of unclosed tags is read in one pass, not once per tag (it blocked Stop for seconds)",
    ),
    M(
        "base64-accepts-anything",
        "render/_sanitize.py",
        '        base64.b64decode("".join(text.split()), validate=True)',
        '        base64.b64decode("".join(text.split()))',
        ("tests/render/test_images_checked.py::test_base64_is_checked_with_padding_and_whitespace_anywhere",),
        "only real base64 is embedded as an image",
    ),
    M(
        "fork-bills-replayed-rounds",
        "engine/loop.py",
        'update={"usage": Usage(cost=0.0)})',
        'update={"usage": reply.usage})',
        ("tests/core/test_fork.py::test_a_fork_bills_only_its_live_rounds",),
        "a fork bills only its live rounds: the replayed ones were paid for by the original",
    ),
    M(
        "txt-saved-as-markdown",
        "render/_save.py",
        '".txt": "text/plain",',
        '".txt": "text/markdown",',
        ("tests/render/test_save.py::test_a_saved_txt_file_is_plain_text_not_markdown_or_html",),
        "run.save('x.txt') writes plain text",
    ),
    M(
        "retry-after-at-the-cap-refused",
        "models/_provider_errors.py",
        "error.retry_after if error.retry_after <= self.max_retry_after else None",
        "error.retry_after if error.retry_after < self.max_retry_after else None",
        (
            "tests/providers/test_provider_common.py::test_backoff_stops_growing_at_its_cap_and_a_retry_after_at_the_cap_is_waited",
        ),
        "a Retry-After of exactly the cap is waited for",
    ),
    M(
        "max-cost-boundary",
        "engine/_limits.py",
        "spent.cost >= max_cost",
        "spent.cost > max_cost",
        ("tests/core/test_limits.py::test_max_cost_is_reached_when_the_cost_spent_equals_it",),
        "max_cost is reached when the spend equals it",
    ),
    M(
        "backoff-past-its-cap",
        "models/_provider_errors.py",
        "delay = min(self.max_delay, self.base_delay * 2**retry_number)",
        "delay = self.base_delay * 2**retry_number",
        (
            "tests/providers/test_provider_common.py::test_backoff_stops_growing_at_its_cap_and_a_retry_after_at_the_cap_is_waited",
        ),
        "a retry never waits longer than max_delay",
    ),
    M(
        "approver-false-runs",
        "core/approvals.py",
        '    if answer is False:\n        return "deny"',
        '    if answer is False:\n        return "run"',
        ("tests/core/test_step_mode.py::test_true_and_edit_run_a_call_false_and_skip_do_not",),
        "an approver's False never runs the call",
    ),
    M(
        "restore-infinite-start",
        "jupyter/_saved_runs.py",
        "started_at: Annotated[float, Field(strict=True, allow_inf_nan=False)]",
        "started_at: Annotated[float, Field(strict=True, allow_inf_nan=True)]",
        ("tests/notebook/test_restore_untrusted.py::test_an_infinite_start_time_is_refused",),
        "a saved run whose start time is 1e999 is refused, not sorted as infinity",
    ),
    M(
        "restore-non-notebook",
        "jupyter/_saved_runs.py",
        'if not isinstance(notebook, dict) or not isinstance(notebook.get("cells", []), list):',
        "if False:",
        ("tests/notebook/test_restore_untrusted.py::test_a_file_that_is_no_notebook_is_refused_in_one_line",),
        "a file that is no notebook is one line, not an AttributeError",
    ),
    M(
        "restore-depth-unchecked",
        "jupyter/_saved_runs.py",
        "too_deep = nesting_past(text, MAX_NOTEBOOK_DEPTH)",
        "too_deep = None",
        ("tests/notebook/test_restore_untrusted.py::test_a_file_that_is_no_notebook_is_refused_in_one_line",),
        "a notebook nested 100,000 deep is refused before the parser recurses",
    ),
    M(
        "bad-url-retried",
        "models/_provider_errors.py",
        '        "UnsupportedProtocol",\n        "InvalidURL",',
        '        "InvalidURL",',
        ("tests/providers/test_provider_errors.py::test_an_address_that_cannot_work_fails_at_once_without_retries",),
        "a base URL without http(s):// fails at once",
    ),
    M(
        "unprintable-error-breaks-the-loop",
        "engine/tool_execution.py",
        'message = _short(error, limit=20_000) or "(no message)"',
        'message = str(error) or "(no message)"',
        ("tests/core/test_faults.py::test_whatever_a_tool_raises_is_that_calls_error_and_the_run_goes_on",),
        "an exception whose __str__ raises is that call's error, not an internal error",
    ),
    M(
        "huge-progress-number",
        "render/_progress.py",
        "    except OverflowError:",
        "    except ZeroDivisionError:",
        ("tests/core/test_faults.py::test_a_huge_number_as_a_progress_report_is_shown_and_the_run_is_kept",),
        "a progress report too large for a float is shown as text",
    ),
    M(
        "progress-without-text",
        "render/_progress.py",
        '    except Exception:\n        return f"(a {type(data).__name__}',
        '    except ZeroDivisionError:\n        return f"(a {type(data).__name__}',
        ("tests/core/test_faults.py::test_a_huge_number_as_a_progress_report_is_shown_and_the_run_is_kept",),
        "a progress report str() refuses is shown as a note, not a broken view",
    ),
    M(
        "to-code-first-line-by-newline",
        "engine/_run_code.py",
        "lines = text.strip().splitlines()",
        'lines = text.strip().split("\\n")',
        ("tests/core/test_check_and_code.py::test_to_code_of_hostile_names_and_errors_calls_only_the_runs_own_tools",),
        "an error's first line ends at any line terminator, \\r included",
    ),
    M(
        "check-failure-traceback",
        "lab/check.py",
        'return [f"AssertionError: {self}"]',
        'return ["Traceback (most recent call last):", str(self)]',
        (
            "tests/core/test_check_and_code.py::test_a_failing_check_masks_a_known_key_and_shows_in_ipython_as_its_message_alone",
        ),
        "a failing check shows in IPython as its message alone",
    ),
    M(
        "judging-swallows-interrupt",
        "lab/evaluation/_grading.py",
        "        raise  # the user's interrupt: the caller keeps the rows judged so far",
        '        return "fail", "interrupted"',
        ("tests/evaluation/test_evaluate.py::test_an_interrupt_while_expect_judges_keeps_every_finished_run",),
        "an interrupt while judging stops the evaluation (keeping its rows), it is no row's failure",
    ),
    M(
        "evaluate-needs-models",
        "lab/evaluation/__init__.py",
        "    if models is None:",
        "    if False:",
        ("tests/evaluation/test_evaluate.py::test_without_models_the_runtime_in_use_runs_every_prompt",),
        "op.evaluate without models= runs the runtime in use",
    ),
    M(
        "lambda-model-label",
        "lab/evaluation/__init__.py",
        'if name == "<lambda>":',
        "if False:",
        ("tests/evaluation/test_evaluate.py::test_a_lambda_model_is_named_after_the_model_it_makes",),
        "a lambda model is named after what it makes, not <lambda>",
    ),
    M(
        "empty-cost-plot",
        "lab/evaluation/_plot.py",
        "if any(s.cost is not None for s in summary):",
        "if True:",
        ("tests/evaluation/test_evaluate.py::test_the_cost_plot_says_when_no_price_is_known",),
        "with no price known the cost panel says so",
    ),
    M(
        "over-budget-unsaid",
        "render/_format.py",
        "spent.cost is not None and spent.cost > run.max_cost:",
        "spent.cost is not None and spent.cost < run.max_cost:",
        ("tests/core/test_limits.py::test_a_run_that_ends_above_its_budget_says_so_in_every_view",),
        "a run that ends above its budget says so",
    ),
    M(
        "terminal-run-denies",
        "jupyter/_cell.py",
        '        if choice in ("r", "run"):\n            return True',
        '        if choice in ("r", "run"):\n            return False',
        ("tests/notebook/test_cell_endings.py::test_step_mode_in_a_terminal_offers_run_edit_skip_and_stop",),
        "r at the terminal's step prompt runs the call",
    ),
    M(
        "run-failed-prints-twice",
        "jupyter/_cell_errors.py",
        "self.shown if self.shown is not None else self",
        "self",
        ("tests/notebook/test_magic_terminal_output.py::test_a_failed_runs_one_line_shows_escapes_and_no_secret",),
        "a failed run's error is printed once, in its transcript",
    ),
    M(
        "local-base-url-needs-key",
        "models/openai_chat.py",
        'local = self.base_url or os.environ.get("OPENAI_BASE_URL")',
        "local = self.base_url",
        ("tests/notebook/test_magic_default_model.py::test_a_local_server_named_by_openai_base_url_needs_no_key",),
        "a local server named by OPENAI_BASE_URL needs no key",
    ),
    M(
        "user-mistake-traceback",
        "core/errors.py",
        '        return [f"{type(self).__name__}: {self}"]',
        '        return [f"Traceback: {type(self).__name__}: {self}"]',
        ("tests/render/test_save.py::test_a_save_mistake_is_one_line_in_ipython_and_still_a_value_error",),
        "a user's mistake is one line in IPython",
    ),
    # -- run settings declared once, and a failure's fields -------------------------------
    M(
        "run-setting-under-runtime",
        "engine/settings.py",
        "return {**base, **check_settings(overrides)}",
        "return {**check_settings(overrides), **base}",
        ("tests/core/test_settings.py::test_a_runtime_holds_defaults_and_a_run_lays_its_own_over_them",),
        "a run's own setting wins over its Runtime's default",
    ),
    M(
        "nested-run-inherits-everything",
        "engine/settings.py",
        "if name in SETTINGS and SETTINGS[name].inherited}",
        "if name in SETTINGS}",
        ("tests/core/test_settings.py::test_a_nested_run_inherits_only_the_settings_declared_inherited",),
        "a nested run takes only the settings declared inherited, never its caller's caps or prompt",
    ),
    M(
        "flag-value-unchecked",
        "jupyter/_options.py",
        "return setting.check(name, setting.flag.parse(text))",
        "return setting.flag.parse(text)",
        ("tests/notebook/test_magic_in_process.py::test_bad_options_say_what_is_wrong",),
        "a flag's value meets the keyword's own check: --max-tool-calls 0 is refused as max_tool_calls=0 is",
    ),
    M(
        "replace-drops-settings",
        "engine/_runtime_config.py",
        '"tools_deny": list(self.tools_deny), **self.settings}',
        '"tools_deny": list(self.tools_deny)}',
        (
            "tests/core/test_settings.py::test_replace_keeps_every_keyword_of_the_runtime_but_the_changed_ones",
            "tests/core/test_settings.py::test_a_fork_on_another_model_keeps_wire_capture_and_text_tool_calls",
        ),
        "a Runtime copied for another model (a fork, --record) keeps every setting",
    ),
    M(
        "fork-forgets-settings",
        "engine/forking.py",
        "settings = {name: value for name, value in run.spec.settings.items() if name not in _NOT_REUSED}",
        "settings = {}",
        ("tests/core/test_settings.py::test_a_fork_on_another_model_keeps_wire_capture_and_text_tool_calls",),
        "a fork goes on with the settings of the run it forks",
    ),
    M(
        "help-percent-not-escaped",
        "jupyter/_options.py",
        'help = flag.help.replace("%", "%%")',
        "help = flag.help",
        ("tests/notebook/test_magic_in_process.py::test_help_shows_every_flag_with_its_help_as_written",),
        "%%agent -h shows each flag's help as written, a % in it included",
    ),
    M(
        "unauthorized-is-not-auth",
        "core/errors.py",
        "if status in (401, 403) or",
        "if status == 403 or",
        ("tests/providers/test_provider_errors.py::test_a_401_is_kept_as_fields_on_the_run_error_and_survives_a_save",),
        "a 401 is a failure of kind auth, on every provider",
    ),
    M(
        "offline-hint-for-any-error",
        "jupyter/_cell.py",
        'if run.error is not None and run.error.kind == "credentials":',
        "if run.error is not None:",
        (
            "tests/notebook/test_magic_terminal_output.py::test_the_choose_a_model_hint_follows_the_errors_kind_not_its_words",
        ),
        "the cell suggests -m offline only when no key was found, decided by the error's kind",
    ),
    M(
        "limit-stop-reason-is-the-cap",
        "engine/loop.py",
        "    state.end(limit.name)\n",
        '    state.end("max_iterations")\n',
        ("tests/core/test_limits.py::test_max_cost_is_reached_when_the_cost_spent_equals_it",),
        "a run ended by its cost or token limit says so in stop_reason",
    ),
    M(
        "reply-error-fields-dropped",
        "models/_provider_common.py",
        "code=error.code,\n            retryable=error.retryable,\n            provider=self.provider,",
        "code=None,\n            retryable=False,\n            provider=None,",
        (
            "tests/providers/test_provider_errors.py::test_a_persistent_429_is_a_retryable_rate_limit",
            "tests/providers/test_provider_errors.py::test_a_401_is_kept_as_fields_on_the_run_error_and_survives_a_save",
        ),
        "a failed reply keeps the provider's fields, not only its words",
    ),
    M(
        "stop-token-not-heard",
        "core/_stop.py",
        "forgets = [event.on_set(wake) for event in events if isinstance(event, StopToken)]",
        "forgets = []",
        ("tests/core/test_stop_token.py::test_run_handle_abort_reaches_the_run_without_polling",),
        "the Stop button, RunHandle.abort() and a parent call's cancel reach the run at once, not at a poll",
    ),
    M(
        "budget-cap-takes-the-looser-limit",
        "engine/_limits.py",
        "return max(1, min(caps)) if caps else None",
        "return max(1, max(caps)) if caps else None",
        ("tests/core/test_limits.py::test_with_two_budgets_the_tighter_one_caps",),
        "with a token and a cost budget, the tighter one caps the round",
    ),
    M(
        "budget-cap-ignores-the-next-input",
        "engine/_limits.py",
        "caps.append(max_tokens - tokens_of(spent) - next_input)",
        "caps.append(max_tokens - tokens_of(spent))",
        ("tests/core/test_limits.py::test_a_token_budget_caps_each_round_at_what_is_left",),
        "the round's own input counts against the token budget its output cap leaves",
    ),
    M(
        "budget-cap-not-sent-to-openai",
        "models/openai_chat.py",
        'payload["max_completion_tokens"] = request.max_output_tokens',
        "pass",
        ("tests/providers/test_provider_budget_cap.py::test_a_token_budget_caps_each_rounds_output_at_what_is_left",),
        "OpenAI is sent the round's output cap",
    ),
    M(
        "budget-cap-on-the-answer-round",
        "engine/_reply.py",
        "        budget = output_cap(config.spec.settings, config.spent(), config.model.name, _last_input(state))",
        "        budget = None",
        ("tests/core/test_limits.py::test_a_token_budget_caps_each_round_at_what_is_left",),
        "every working round is capped by the budget",
    ),
    # -- the newer modules, four or more each (issue 26) ----------------------------------
    M(
        "output-cap-per-write",
        "engine/_tool_output.py",
        "room = MAX_STREAM_CHARS - self._stream_chars",
        "room = MAX_STREAM_CHARS",
        ("tests/core/test_tool_output.py::test_a_flood_of_output_is_bounded_with_a_note",),
        "a tool's output is bounded in total, not per write",
    ),
    M(
        "output-streams-merged",
        "engine/_tool_output.py",
        'if last is not None and last["type"] == "stream" and last["name"] == name:',
        'if last is not None and last["type"] == "stream":',
        ("tests/core/test_tool_output.py::test_printed_lines_and_stderr_are_kept_in_order_in_the_result_details",),
        "stdout and stderr stay apart, in the order written",
    ),
    M(
        "figure-left-open",
        "engine/_tool_output.py",
        "            pyplot.close(figure)",
        "            pass",
        ("tests/core/test_tool_output.py::test_a_figure_left_open_is_kept_as_png_and_closed",),
        "a figure the tool left open is closed once kept, or the inline backend shows it again",
    ),
    M(
        "streams-not-given-back",
        "engine/_tool_output.py",
        "setattr(sys, name, self._saved.pop(name))  # someone else's replacement is left alone",
        "self._saved.pop(name)",
        ("tests/core/test_tool_output.py::test_the_streams_and_the_display_publisher_are_given_back_after_the_call",),
        "sys.stdout and sys.stderr are the user's own again after the call",
    ),
    M(
        "text-call-off-the-menu",
        "models/_text_tool_calls.py",
        "if not isinstance(name, str) or name not in tool_names or not isinstance(arguments, dict):",
        "if not isinstance(name, str) or not isinstance(arguments, dict):",
        ("tests/providers/test_text_tool_calls.py::test_what_is_not_a_whole_block_for_a_menu_tool_stays_text",),
        "a call written as text runs only a tool on the run's menu",
    ),
    M(
        "text-calls-one-off-menu-accepted",
        "models/_text_tool_calls.py",
        "if not calls or any(call is None for call in calls):",
        "if not calls or all(call is None for call in calls):",
        ("tests/providers/test_text_tool_calls.py::test_what_is_not_a_whole_block_for_a_menu_tool_stays_text",),
        "a reply of several calls one of which is off the menu stays text",
    ),
    M(
        "text-before-a-call-lost",
        "models/_text_tool_calls.py",
        "pieces += [text[position:start].strip(), call]",
        "pieces += [call]",
        (
            "tests/providers/test_text_tool_calls.py::test_a_hermes_block_becomes_a_call_and_the_text_around_it_stays_text",
        ),
        "the text around a call written as text stays text",
    ),
    M(
        "wire-request-chain-cut",
        "models/_wire.py",
        "digests = digests[: link.shared] + link.new",
        "digests = link.new",
        ("tests/providers/test_provider_wire.py::test_captured_request_is_the_body_the_server_received",),
        "a round's request is rebuilt whole from the rounds it shares messages with",
    ),
    M(
        "wire-request-unmasked",
        "models/_wire.py",
        "        return Secrets.now().mask_data(body, shapes=False)",
        "        return body",
        (
            "tests/providers/test_provider_wire.py::test_a_key_made_known_after_the_capture_is_masked_when_the_round_is_read",
        ),
        "a captured request is masked with every key known when it is read, not only when it was captured",
    ),
    M(
        "wire-frames-unmasked",
        "models/_wire.py",
        "frames = mask_split_secrets([json.loads(text) for text in entry.frames], Secrets.now())",
        "frames = [json.loads(text) for text in entry.frames]",
        (
            "tests/providers/test_provider_wire.py::test_a_key_the_model_streams_back_in_pieces_is_masked_across_the_frames",
        ),
        "a key streamed back in pieces is masked across the kept frames",
    ),
    M(
        "save-suffix-case",
        "render/_save.py",
        "mime = SAVE_FORMATS.get(target.suffix.lower())",
        "mime = SAVE_FORMATS.get(target.suffix)",
        ("tests/render/test_save.py::test_a_saved_html_file_is_a_page",),
        "run.save('run.HTML') is a page too",
    ),
    M(
        "save-html-unframed",
        "render/_save.py",
        "        text = DOCUMENT_HEAD + text + DOCUMENT_TAIL",
        "        text = text",
        ("tests/render/test_save.py::test_a_saved_html_file_is_a_page",),
        "a saved .html file is a whole page",
    ),
    M(
        "save-markdown-as-text",
        "render/_save.py",
        '".md": "text/markdown"',
        '".md": "text/plain"',
        ("tests/render/test_save.py::test_a_saved_markdown_file_is_markdown",),
        "run.save('run.md') writes Markdown",
    ),
    M(
        "reply-error-summary-unmasked",
        "core/_masking.py",
        "            message.error.summary = self.secrets.mask(message.error.summary)",
        "            pass",
        ("tests/core/test_secrets.py::test_the_run_error_and_runerror_hold_no_key",),
        "run.error, built from the failed reply's fields, holds no key",
    ),
    M(
        "shorter-secret-first",
        "core/_secrets.py",
        "return tuple(sorted(forms, key=lambda form: (-len(form), form)))",
        "return tuple(sorted(forms, key=lambda form: (len(form), form)))",
        ("tests/core/test_secrets.py::test_a_longer_secret_is_masked_whole_when_a_shorter_one_is_inside_it",),
        "a longer secret is masked whole, not around a shorter one inside it",
    ),
    M(
        "mcp-close-unregisters-a-users-tool",
        "tools/mcp_source.py",
        "if self.registry.get(tool.name) is tool:",
        "if self.registry.get(tool.name) is not None:",
        (
            "tests/tool_sources/test_mcp_tools.py::test_closing_a_server_leaves_a_tool_the_user_registered_under_its_name",
        ),
        "closing a server unregisters its own tools, never the user's",
    ),
    M(
        "check-answer-case-sensitive",
        "lab/check.py",
        "found = text in answer if case_sensitive else text.casefold() in answer.casefold()",
        "found = text in answer",
        ("tests/core/test_check_and_code.py::test_checks_that_hold_chain_and_say_what_they_checked",),
        "answer_contains matches in any case unless told otherwise",
    ),
    M(
        "fork-replays-the-fork-round",
        "engine/forking.py",
        "replay=tuple(rounds[: round - 1])",
        "replay=tuple(rounds[:round])",
        ("tests/core/test_fork.py::test_rounds_before_the_fork_make_no_model_request_and_run_no_tool",),
        "the fork's round is asked of the model, not replayed",
    ),
    M(
        "fork-takes-the-old-tool",
        "engine/forking.py",
        (
            "            or runtime.registry.get(name)\n"
            "            or (run.spec.menu.get(name) if run.spec is not None else None)\n"
        ),
        (
            "            or (run.spec.menu.get(name) if run.spec is not None else None)\n"
            "            or runtime.registry.get(name)\n"
        ),
        ("tests/core/test_fork.py::test_by_default_the_fork_takes_the_tools_as_they_are_registered_now",),
        "a fork runs a tool as it is defined now",
    ),
    M(
        "cache-keeps-failures",
        "engine/tool_execution.py",
        '    if outcome.status == "done":\n        cache[key] = outcome.value',
        "    if True:\n        cache[key] = outcome.value",
        ("tests/core/test_tool_options_in_loop.py::test_a_failed_call_is_not_cached_and_runs_again",),
        "a failed call is not cached: the same call runs again",
    ),
    M(
        "cache-for-every-tool",
        "engine/tool_execution.py",
        'cache = getattr(tool, "cache", None) if tool.options.cache else None',
        'cache = getattr(tool, "cache", None)',
        ("tests/core/test_tool_options_in_loop.py::test_a_tool_without_cache_runs_every_time",),
        "only a cache=True tool is cached",
    ),
    M(
        "cache-any-entry",
        "engine/tool_execution.py",
        "    if key in cache:",
        "    if cache:",
        ("tests/core/test_tool_options_in_loop.py::test_cache_returns_the_earlier_result_without_running_the_body",),
        "a cached result answers only the same arguments",
    ),
    M(
        "cache-key-order",
        "engine/tool_execution.py",
        "json.dumps(call.arguments, sort_keys=True, default=str)",
        "json.dumps(call.arguments, default=str)",
        ("tests/core/test_tool_options_in_loop.py::test_the_same_arguments_in_another_order_are_the_same_cached_call",),
        "the same arguments in another order are the same call",
    ),
    M(
        "restore-ignores-new",
        "jupyter/_saved_runs.py",
        "saved = [run for run in every if (run.session_created_at or 0.0) == latest]",
        "saved = every",
        (
            "tests/notebook/test_kernel_teaching.py::test_restore_follows_the_kernels_order_and_a_new_start_not_the_notebooks_cell_order",
        ),
        "a session started again with --new is restored from that start, as the kernel had it",
    ),
    M(
        "side-by-side-failure-passed-over",
        "jupyter/_foreground.py",
        "        raise_failure(outcome)\n",
        "        pass\n",
        (
            "tests/notebook/test_cell_endings.py::test_a_side_by_side_run_that_breaks_is_shown_beside_the_other_and_fails_the_cell",
        ),
        "a run of a side-by-side cell that raises fails the cell, as one on one model does",
    ),
    M(
        "stale-run-for-a-run-never-begun",
        "jupyter/_foreground.py",
        "since = plan.runtime.last_run if plan.runtime.last_run is not before else None",
        "since = plan.runtime.last_run",
        (
            "tests/notebook/test_cell_endings.py::test_a_run_that_breaks_before_it_exists_does_not_show_the_runtimes_earlier_run",
        ),
        "a run that never began is not taken for the Runtime's earlier run",
    ),
    M(
        "blocking-interrupt-says-ended",
        "jupyter/_foreground.py",
        "Outcome(handle.run, ended=handle.done)",
        "Outcome(handle.run, ended=True)",
        (
            "tests/notebook/test_cell_endings.py::test_a_blocking_cell_interrupted_keeps_the_run_even_when_the_run_will_not_stop",
        ),
        "an interrupted blocking cell says when its run had not stopped",
    ),
    M(
        "awaited-interrupt-says-ended",
        "jupyter/_foreground.py",
        "ended = [task.done() for task in tasks]",
        "ended = [True for task in tasks]",
        (
            "tests/notebook/test_cell_endings.py::test_an_awaited_run_that_ignores_the_interrupt_is_let_go_after_the_grace",
        ),
        "an interrupted awaited cell says when its run had not stopped",
    ),
    M(
        "figures-never-to-model",
        "engine/_call_result.py",
        'if not ((settings or {}).get("figures_to_model") or (options is not None and options.figures_to_model)):',
        'if not (settings or {}).get("figures_to_model"):',
        ("tests/providers/test_provider_images.py::test_a_tool_that_only_draws_sends_its_figure_when_it_opts_in",),
        "a tool that opts in sends the figures it drew to the model",
    ),
    M(
        "figure-result-is-its-repr",
        "tools/_images.py",
        'if module.startswith("matplotlib.") and hasattr(value, "savefig"):',
        'if module.startswith("matplotlib.") and hasattr(value, "savefig") and False:',
        ("tests/providers/test_provider_images.py::test_a_returned_figure_reaches_the_model",),
        "a returned figure reaches the model as its picture",
    ),
    M(
        "large-image-sent-as-is",
        "tools/_images.py",
        "if max(picture.size) <= MAX_EDGE and len(data) <= MAX_BYTES:",
        "if len(data) <= MAX_BYTES:",
        (
            "tests/providers/test_provider_images.py::test_a_large_picture_is_scaled_down_to_the_limit_before_it_is_sent",
        ),
        "a picture larger than the providers take is scaled down",
    ),
    M(
        "images-always-to-model",
        "engine/_reply.py",
        'if config.spec.settings["images_to_model"] else without_images(state.conversation)',
        "if True else without_images(state.conversation)",
        ("tests/providers/test_provider_images.py::test_a_model_that_takes_no_images_gets_a_note_instead",),
        "images_to_model=False sends notes in place of images",
    ),
    M(
        "list-of-strings-is-text-blocks",
        "tools/_images.py",
        "return blocks if any(isinstance(block, ImageContent) for block in blocks) else None",
        "return blocks",
        ("tests/tools/test_results.py::test_a_list_of_plain_strings_is_data_not_text_blocks",),
        "a list without a picture stays JSON data",
    ),
    M(
        "anthropic-never-marks-the-cache",
        "models/anthropic.py",
        "        if request.prompt_cache:\n            _mark_cache_points(payload)",
        "        if False:\n            _mark_cache_points(payload)",
        (
            "tests/providers/test_provider_prompt_cache.py::test_every_request_marks_the_tools_the_system_and_the_newest_message",
        ),
        "Anthropic requests mark the prompt cache by default",
    ),
    M(
        "bedrock-marks-every-model",
        "models/bedrock.py",
        'return base.startswith("amazon.nova-")',
        "return True",
        (
            "tests/providers/test_provider_prompt_cache.py::test_a_bedrock_model_without_prompt_caching_gets_no_cache_point",
        ),
        "a Bedrock model that refuses cache points gets none",
    ),
    M(
        "prompt-cache-setting-ignored",
        "engine/_reply.py",
        'prompt_cache=config.spec.settings["prompt_cache"],',
        "prompt_cache=True,",
        ("tests/providers/test_provider_prompt_cache.py::test_prompt_cache_false_sends_no_mark",),
        "prompt_cache=False sends no cache mark",
    ),
    M(
        "cache-tokens-unsaid",
        "render/_format.py",
        '(("read", usage.cache_read), ("write", usage.cache_write))\n        if count\n',
        '(("read", usage.cache_read), ("write", usage.cache_write))\n        if not count\n',
        (
            "tests/providers/test_provider_prompt_cache.py::test_cache_reads_and_writes_are_in_the_usage_the_cost_the_header_and_the_transcript",
        ),
        "cache reads and writes are shown wherever usage is",
    ),
    M(
        "redacted-thinking-not-returned",
        "models/anthropic.py",
        "elif isinstance(redacted, str):",
        "elif False:",
        (
            "tests/providers/test_provider_reasoning.py::test_anthropic_returns_signed_and_redacted_thinking_unchanged_with_the_calls",
        ),
        "Anthropic's redacted thinking goes back with the calls it came with",
    ),
    M(
        "reasoning-items-not-returned",
        "models/openai_responses.py",
        "    out += _kept_items(entry.message)\n",
        "",
        (
            "tests/providers/test_provider_reasoning.py::test_openai_responses_sends_its_encrypted_reasoning_items_back_before_the_calls",
        ),
        "OpenAI Responses' encrypted reasoning goes back next round",
    ),
    M(
        "reasoning-effort-ignored",
        "models/openai_chat.py",
        '            payload["reasoning_effort"] = effort',
        "            pass",
        ("tests/providers/test_provider_reasoning.py::test_reasoning_high_is_each_providers_own_field",),
        "reasoning reaches Chat Completions as reasoning_effort",
    ),
    M(
        "reasoning-budget-table-off-by-one",
        "models/_reasoning.py",
        'if reasoning <= budget), "high")',
        'if reasoning < budget), "high")',
        ("tests/providers/test_provider_reasoning.py::test_an_effort_and_a_budget_are_one_table",),
        "a budget maps to the effort of the smallest row it does not exceed",
    ),
    M(
        "bedrock-thinking-for-any-model",
        "models/bedrock.py",
        "    if not model_family(model_id)[0]:\n        notices.append",
        "    if False:\n        notices.append",
        (
            "tests/providers/test_provider_reasoning.py::test_bedrock_sends_reasoning_only_to_claude_and_says_so_for_others",
        ),
        "Bedrock sends thinking only to Claude models",
    ),
    M(
        "oversized-request-sent",
        "engine/_reply.py",
        "    if too_big is not None:\n",
        "    if False:\n",
        ("tests/providers/test_provider_context.py::test_a_first_request_larger_than_the_window_is_never_sent",),
        "a request larger than the context window is never sent",
    ),
    M(
        "context-meter-first-round",
        "render/_format.py",
        "(r.usage for r in reversed(run.rounds))",
        "(r.usage for r in run.rounds)",
        (
            "tests/providers/test_provider_context.py::test_the_meter_is_the_latest_requests_tokens_as_the_provider_counted_them",
        ),
        "the context meter shows the latest request, not the first",
    ),
    M(
        "context-estimate-ignores-what-came-after",
        "engine/_context.py",
        "usage.input + usage.cache_read + usage.cache_write + usage.output, messages[last + 1 :], 0",
        "usage.input + usage.cache_read + usage.cache_write + usage.output, [], 0",
        ("tests/providers/test_provider_context.py::test_a_later_round_that_would_not_fit_stops_before_it_is_sent",),
        "the estimate counts what was added since the provider's last count",
    ),
    M(
        "server-in-tools-is-not-a-tool",
        "tools/menu.py",
        "for tool in (toolset_of(entry) or [entry])]",
        "for tool in [entry]]",
        ("tests/tool_sources/test_mcp_tools.py::test_a_server_in_tools_stands_for_its_tools",),
        "tools=[server] stands for the server's tools",
    ),
    M(
        "tools-flag-ignores-a-server",
        "jupyter/_cell_tools.py",
        "toolset = toolset_of(value) if value is not None else None",
        "toolset = None",
        ("tests/tool_sources/test_mcp_magic.py::test_tools_flag_takes_a_server_variable_as_its_tools",),
        "--tools with a server variable puts its tools on the menu",
    ),
    M(
        "nested-run-span-not-under-its-call",
        "observe/_tracing.py",
        'parent, agent = open_calls[-1] if open_calls else (None, "")',
        'parent, agent = None, ""',
        ("tests/core/test_tracing.py::test_a_run_with_two_rounds_a_call_and_a_nested_run_is_one_span_tree",),
        "a nested run's span hangs under the call that started it",
    ),
    M(
        "tool-contents-always-traced",
        "observe/_tracing.py",
        "        if self._content:\n            _set(span, {TOOL_ARGUMENTS",
        "        if True:\n            _set(span, {TOOL_ARGUMENTS",
        ("tests/core/test_tracing.py::test_a_run_with_two_rounds_a_call_and_a_nested_run_is_one_span_tree",),
        "contents are traced only with trace_content=True",
    ),
    M(
        "nested-runs-traced-twice",
        "engine/execute.py",
        'if not settings["trace"] or spec.depth != 0:',
        'if not settings["trace"]:',
        ("tests/core/test_tracing.py::test_a_run_with_two_rounds_a_call_and_a_nested_run_is_one_span_tree",),
        "a nested run's spans are made once, by the top-level run",
    ),
    M(
        "trace-without-the-api",
        "engine/settings.py",
        'if importlib.util.find_spec("opentelemetry") is None or',
        "if False and",
        ("tests/core/test_tracing.py::test_without_the_api_trace_is_one_clear_error",),
        "trace=True without OpenTelemetry's API is one clear error",
    ),
    M(
        "sessions-not-completed",
        "jupyter/_completion.py",
        "return [session.name for session in magics.sessions]",
        "return []",
        ("tests/notebook/test_completion.py::test_a_kernel_completes_session_names_for_a_frontend",),
        "Tab after -s offers the session names",
    ),
    M(
        "completion-not-cut-at-the-symbol",
        "jupyter/_completion.py",
        "cut = len(word) - len(event.symbol)",
        "cut = 0",
        ("tests/notebook/test_completion.py::test_cell_line_offers_flags_sessions_models_and_tools",),
        "a completion after ':' is the rest of the model string, not all of it again",
    ),
    M(
        "a-run-is-a-toolset",
        "tools/menu.py",
        'if all(isinstance(t, Tool) or hasattr(t, "execute") for t in tools) else None',
        "",
        ("tests/notebook/test_completion.py::test_cell_line_offers_flags_sessions_models_and_tools",),
        "a Run's .tools (names) do not make it a toolset",
    ),
    M(
        "own-price-not-first",
        "models/pricing.py",
        "    price = _own_price(model_name)\n    if price is None:",
        "    price = None\n    if price is None:",
        ("tests/providers/test_provider_common.py::test_users_can_register_a_price",),
        "a price you register is used before the library's",
    ),
    M(
        "price-unknown-unsaid",
        "render/_format.py",
        "if usage.cost is None and total:",
        "if False:",
        (
            "tests/providers/test_provider_prices.py::test_a_model_the_library_does_not_know_reads_price_unknown_and_max_cost_says_so_once",
        ),
        "a model no price is known for reads price unknown, never $0",
    ),
    M(
        "library-cost-without-cache-reads",
        "models/pricing.py",
        "cache_read_tokens=usage.cache_read,",
        "cache_read_tokens=0,",
        ("tests/providers/test_provider_prices.py::test_a_replys_cost_is_the_librarys_for_its_usage",),
        "cached tokens are priced at their own price",
    ),
    # -- the tool-design lab, round 2: reruns, runs as tests, policies, judges, views ---------
    M(
        "rerun-skips-recorded-messages",
        "engine/_round_sources.py",
        "return [*recorded.then, *pending]",
        "return pending",
        ("tests/core/test_rerun.py::test_the_messages_the_recording_delivered_are_delivered_again",),
        "a rerun delivers again the messages the recording delivered after a round",
    ),
    M(
        "rerun-compares-after-divergence",
        "engine/_divergence.py",
        "if plan is None or diverged or not 1 <= number",
        "if plan is None or not 1 <= number",
        ("tests/core/test_rerun.py::test_live_asks_the_model_only_after_the_divergence_and_only_once",),
        "a live rerun asks the model from the divergence on and compares nothing more",
    ),
    M(
        "rerun-asks-the-answer-round",
        "engine/_round_sources.py",
        "recorded = round_to_rerun(self.plan, round.number, self.diverged)\n        return round.play(",
        "recorded = None\n        return round.play(",
        ("tests/core/test_rerun.py::test_the_answer_round_at_a_limit_is_played_back_too",),
        "a rerun plays a recorded answer round at a limit back: no request",
    ),
    M(
        "rerun-always-stops",
        "engine/_round_sources.py",
        "        if not self.plan.live:\n",
        "        if True:\n",
        ("tests/core/test_rerun.py::test_live_asks_the_model_only_after_the_divergence_and_only_once",),
        "live=True goes on after the divergence",
    ),
    M(
        "rerun-recording-ends-a-round-early",
        "engine/_divergence.py",
        "if plan is None or diverged or rounds_so_far < len(plan.rounds):",
        "if plan is None or diverged or rounds_so_far <= len(plan.rounds):",
        ("tests/core/test_rerun.py::test_a_recording_that_ends_before_the_rerun_does_is_a_divergence",),
        "a rerun that would go on past its recording's last round diverges there, asking no model",
    ),
    M(
        "rerun-ignores-the-error-flag",
        "engine/_divergence.py",
        "return result.is_error, [block",
        "return True, [block",
        ("tests/core/test_rerun.py::test_a_result_that_reads_the_same_but_failed_in_the_recording_diverges",),
        "a result that failed in the recording and succeeds now is a divergence",
    ),
    M(
        "rerun-limit-overwrites-diverged",
        "engine/_loop_state.py",
        '"aborted",\n            "diverged",\n        ):',
        '"aborted",\n        ):',
        ("tests/core/test_rerun.py::test_a_recording_that_ends_before_the_rerun_does_is_a_divergence",),
        "a rerun that diverges at the answer round of a limit ends diverged, not at the limit",
    ),
    M(
        "rerun-registered-over-given",
        "engine/forking.py",
        "replacements.pop(name, None)\n            or runtime.registry.get(name)\n",
        "runtime.registry.get(name)\n            or replacements.pop(name, None)\n",
        ("tests/core/test_rerun.py::test_tools_given_replace_the_tools_of_the_same_name",),
        "rerun(tools=[...]) runs the given tool in place of the registered one of that name",
    ),
    M(
        "to-test-unmasked",
        "engine/_run_test.py",
        "writer = CodeWriter(scrub=scrub)",
        "writer = CodeWriter(scrub=lambda value: value)",
        ("tests/core/test_run_to_test.py::test_secrets_are_masked_in_the_test_and_the_cassette",),
        "no known secret is written into the test file",
    ),
    M(
        "to-test-live-result-raw",
        "engine/_run_test.py",
        '"        returned = scrub(result.text)  # masked as the recorded text was written",',
        '"        returned = result.text",',
        (
            "tests/core/test_run_to_test_masked.py::test_a_result_holding_a_token_and_key_shapes_passes_on_unchanged_tools",
            "tests/core/test_run_to_test_masked.py::test_a_failed_call_whose_error_holds_a_token_passes_on_unchanged_tools",
        ),
        "a written test masks the live result as the recorded one was, so a token in it passes on unchanged tools",
    ),
    M(
        "scrub-tuples-kept",
        "models/replay.py",
        "return tuple(_without_auth_headers(item) for item in value)",
        "return value",
        (
            "tests/core/test_run_to_test_masked.py::test_a_result_holding_a_token_and_key_shapes_passes_on_unchanged_tools",
        ),
        "an auth header in a recorded result (a tuple's string) is not written into the test file",
    ),
    M(
        "to-test-prompt-as-code",
        "engine/_run_test.py",
        'f"PROMPT = {writer.literal(prompt)}",',
        'f\'PROMPT = """{prompt}"""\',',
        ("tests/core/test_run_to_test.py::test_text_from_the_run_never_becomes_code",),
        "the run's text is a literal in the test file, never code",
    ),
    M(
        "to-test-not-ok",
        "engine/_run_test.py",
        'ok = all(r.status == "done" for r in run.tool_results)',
        "ok = False",
        (
            "tests/core/test_run_to_test.py::test_the_test_passes_offline_and_fails_naming_the_call_a_schema_change_breaks",
        ),
        "the written test fails when a recorded pick no longer runs",
    ),
    M(
        "literal-nan-bare",
        "core/_code_writer.py",
        "    if math.isfinite(value):",
        "    if True:",
        ("tests/core/test_code_writer.py::test_non_finite_numbers_are_written_as_float_calls",),
        "a NaN or an infinity is written float('nan'), never a bare name that raises NameError",
    ),
    M(
        "to-test-overwrites",
        "engine/_run_test.py",
        "        if target.exists() and not overwrite:",
        "        if False:",
        ("tests/core/test_run_to_test.py::test_an_existing_test_is_kept_unless_overwrite_is_given",),
        "an existing test file is kept unless overwrite=True",
    ),
    M(
        "to-test-module-tool-copied",
        "engine/_run_test.py",
        "        found = _importable(tool, test_folder)",
        "        found = None",
        ("tests/core/test_run_to_test.py::test_a_tool_from_an_importable_module_is_imported_so_edits_to_it_count",),
        "a tool from an importable module is imported by the test, so edits to it count",
    ),
    M(
        "non-finite-arguments-pass",
        "models/base.py",
        "        if non_finite := non_finite_numbers(call.arguments):",
        "        if non_finite := []:",
        (
            "tests/providers/test_provider_non_finite.py::test_a_non_finite_argument_is_an_error_result_and_the_run_goes_on",
        ),
        "a NaN argument is the model's error, answered before the tool runs",
    ),
    M(
        "span-name-unmasked",
        "observe/_tracing.py",
        "self._tracer.start_span(secrets.mask(name),",
        "self._tracer.start_span(name,",
        (
            "tests/core/test_tracing.py::test_a_key_in_a_tool_name_the_model_made_up_is_masked_in_every_span_name_and_attribute",
        ),
        "a key in a tool name never reaches a span's name",
    ),
    M(
        "judge-fence-fixed",
        "lab/evaluation/_judge.py",
        'boundary = "RUN-" + hashlib.sha256(',
        'boundary = "=====" or hashlib.sha256(',
        ("tests/evaluation/test_judge.py::test_the_graded_run_cannot_end_its_own_block_and_speak_outside_it",),
        "the graded run cannot end its own data block",
    ),
    M(
        "to-test-no-imports",
        "engine/_run_test.py",
        "            imports.update(_imports_for(tool.fn, source))\n",
        "",
        ("tests/core/test_run_to_test.py::test_the_names_a_tool_uses_are_imported_as_its_module_had_them",),
        "the written test imports what the tools' source uses",
    ),
    M(
        "called-in-order-any-length",
        "lab/check.py",
        "        if len(wanted) != len(self._picks):",
        "        if False:",
        ("tests/core/test_check_and_code.py::test_a_failing_check_names_what_was_expected_and_lists_what_the_run_did",),
        "called_in_order holds only for exactly those picks",
    ),
    M(
        "called-in-order-ok-ignored",
        "lab/check.py",
        "            if not pick.matches(name, arguments, ok):",
        "            if not pick.matches(name, arguments, False):",
        ("tests/core/test_check_and_code.py::test_called_in_order_with_ok_needs_each_pick_to_have_run",),
        "called_in_order(ok=True) needs each pick to have run",
    ),
    M(
        "policy-keyword-order",
        "core/approval_policy.py",
        '(("deny", deny), ("ask", ask), ("allow", allow))',
        '(("allow", allow), ("ask", ask), ("deny", deny))',
        ("tests/core/test_approval_policy.py::test_deny_is_checked_before_ask_and_allow_whatever_the_keyword_order",),
        "op.policy's keywords check deny, then ask, then allow: a deny pattern wins over an overlapping allow",
    ),
    M(
        "policy-last-match-wins",
        "core/approval_policy.py",
        "            for rule in rules:",
        "            for rule in reversed(rules):",
        ("tests/core/test_approval_policy.py::test_rules_are_checked_in_the_order_given_and_the_first_match_wins",),
        "the first matching rule decides",
    ),
    M(
        "policy-default-ignored",
        "core/approval_policy.py",
        'return Decision(self.default, None, "default") if self.default is not None else None',
        "return None",
        ("tests/core/test_approval_policy.py::test_the_default_decides_every_call_no_rule_matches",),
        "default= decides every call no rule matches",
    ),
    M(
        "session-rule-changes-the-policy",
        "core/approval_policy.py",
        "return replace(self, session=session, ask_with=self.ask_with or ask_with, asks_with_view=borrowed)",
        'object.__setattr__(self, "session", session); return self',
        (
            "tests/core/test_approval_policy.py::test_session_rules_come_first_without_changing_the_policy_the_user_wrote",
        ),
        "session rules go to a copy, never into the policy the user wrote",
    ),
    M(
        "always-allow-every-tool",
        "jupyter/_live.py",
        'Rule.for_tool("allow" if answer.allow else "deny", waiting.request.tool_name)',
        'Rule.parse("allow" if answer.allow else "deny", "*")',
        ("tests/widgets/test_view_always.py::test_always_allow_answers_the_tools_later_calls_and_no_other_tools",),
        "Always allow adds a rule for the clicked call's tool alone",
    ),
    M(
        "approval-rule-unescaped-html",
        "render/html.py",
        'rule = f"<code>{escape(approval.pattern)}</code>" if',
        'rule = f"<code>{approval.pattern}</code>" if',
        ("tests/render/test_approval_rule_transcripts.py::test_a_pattern_with_markup_is_text_in_every_format",),
        "a rule's pattern is text in the HTML transcript, never markup",
    ),
    M(
        "approval-rule-missing-in-markdown",
        "render/markdown.py",
        '        head += f" · {approval.before}{rule}{approval.after}"',
        '        head += f" · {approval.before}{approval.after}"',
        ("tests/render/test_approval_rule_transcripts.py::test_each_format_names_the_rule_and_who_decided",),
        "the Markdown transcript names the rule that decided",
    ),
    M(
        "judge-verdict-inverted",
        "lab/evaluation/_judge.py",
        'Judgement(value["decision"] == "pass",',
        'Judgement(value["decision"] == "fail",',
        (
            "tests/evaluation/test_judge.py::test_the_judge_passes_the_runs_that_meet_the_rubric_and_fails_the_others_with_its_reason",
        ),
        "the judge's pass passes the row and its fail fails it",
    ),
    M(
        "checks-or-judges",
        "lab/evaluation/_grading.py",
        'if graded.verdict != "pass":\n                return graded',
        'if graded.verdict == "pass":\n                return graded',
        (
            "tests/evaluation/test_judge.py::test_checks_and_judges_in_a_list_must_all_pass_and_a_failed_check_spares_the_judge",
        ),
        "checks and judges in expect= combine with AND, in order",
    ),
    M(
        "compare-lists-equal",
        "lab/evaluation/_views.py",
        "any(_field(row_a, f) != _field(row_b, f) for f in fields)",
        "any(_field(row_a, f) == _field(row_b, f) for f in fields)",
        ("tests/evaluation/test_views.py::test_compare_lists_only_the_prompts_where_the_two_models_differ",),
        "ev.compare lists only the prompts where the two models differ",
    ),
    M(
        "sort-reversed",
        "lab/evaluation/_views.py",
        "reverse=descending",
        "reverse=not descending",
        (
            "tests/evaluation/test_views.py::test_sort_orders_smallest_first_unless_descending_and_ties_keep_their_order",
        ),
        "ev.sort is smallest first unless descending=True",
    ),
    M(
        "judge-reason-markup",
        "lab/evaluation/_html.py",
        'f"judge: {escape(j.reason)}"',
        'f"judge: {j.reason}"',
        ("tests/evaluation/test_views.py::test_markup_from_outside_stays_text_in_every_view",),
        "a judge's reason is text in the table, never markup",
    ),
    # -- performance, round 3: what a round reuses, the warm-up taken over -----------------
    M(
        "anthropic-sdk-walks-history",
        "models/anthropic.py",
        "    if not takes_raw_bodies(client):",
        "    if takes_raw_bodies(client):",
        (
            "tests/providers/test_provider_history_walk.py::"
            "test_the_sdk_does_not_walk_the_history_so_a_rounds_cost_does_not_grow_with_it",
        ),
        "the Anthropic SDK does not walk the whole history every round",
    ),
    M(
        "merged-message-changed-in-place",
        "models/_history.py",
        '        messages[-1] = {**messages[-1], "content": [*messages[-1]["content"], *blocks]}',
        '        messages[-1]["content"].extend(blocks)',
        ("tests/providers/test_provider_incremental.py::test_each_round_is_the_body_a_fresh_model_builds",),
        "a steering message merged into the results does not corrupt the next rounds' bodies",
    ),
    M(
        "history-memo-other-run-reused",
        "models/_incremental.py",
        "        if reused > closed or messages[:reused] != self._sources:",
        "        if reused > closed:",
        ("tests/providers/test_provider_incremental.py::test_each_round_is_the_body_a_fresh_model_builds",),
        "another run's history is never sent in place of this one's",
    ),
    M(
        "encoded-prefix-not-compared",
        "models/_incremental.py",
        "    return same.index(False) if False in same else len(same)",
        "    return len(same)",
        ("tests/providers/test_provider_incremental.py::test_each_round_is_the_body_a_fresh_model_builds",),
        "the bytes sent are those of this round's messages, not the last round's",
    ),
    M(
        "warm-up-not-taken-over",
        "jupyter/_warm_up.py",
        "            _taken_over.set()",
        "            pass",
        ("tests/notebook/test_warm_up_take_over.py::test_an_agent_cell_waits_for_the_step_under_way_and_no_more",),
        "a first %%agent cell waits only for the warm-up step under way",
    ),
    M(
        "rerun-same-ignored",
        "engine/_divergence.py",
        "    if same is None:\n        return _as_the_model_reads(before) == _as_the_model_reads(now)",
        "    if True:\n        return _as_the_model_reads(before) == _as_the_model_reads(now)",
        ("tests/core/test_rerun.py::test_same_decides_what_counts_as_the_same_result",),
        "rerun(same=...) decides what counts as the same result",
    ),
    M(
        "join-list-ends-restored",
        "models/_incremental.py",
        "    parts[0], parts[-1] = first, last",
        "    pass",
        (
            "tests/providers/test_provider_incremental.py::"
            "test_encoding_keeps_each_message_s_bytes_apart_from_the_body_s_ends",
        ),
        "each message's saved bytes never carry the body's opening or closing fields",
    ),
    M(
        "prices-lookup-per-reply",
        "models/pricing.py",
        "    if kept is None or kept[0] is not snapshot:",
        "    if True:",
        ("tests/providers/test_provider_prices.py::test_a_run_looks_its_model_up_in_the_library_once",),
        "a run asks the price library once per model, not on every reply",
    ),
    M(
        "prices-snapshot-ignored",
        "models/pricing.py",
        "    if kept is None or kept[0] is not snapshot:",
        "    if kept is None:",
        ("tests/providers/test_provider_prices.py::test_a_new_price_snapshot_is_looked_up_anew",),
        "a price update is not hidden by the cache",
    ),
    M(
        "bedrock-cache-point-in-place",
        "models/bedrock.py",
        '        payload["messages"][-1] = {**newest, "content": [*newest["content"], dict(_CACHE_POINT)]}',
        '        newest["content"].append(dict(_CACHE_POINT))',
        ("tests/providers/test_provider_incremental.py::test_each_round_is_the_body_a_fresh_model_builds",),
        "a reused message never carries an earlier round's cache point",
    ),
    M(
        "bedrock-stand-in-sent",
        "models/_bedrock_body.py",
        "    if _STAND_IN_BYTES[1:-1] in body:",
        "    if False:",
        ("tests/providers/test_provider_incremental.py::test_bedrock_never_sends_the_stand_in_for_its_messages",),
        "the stand-in message never reaches the model",
    ),
    M(
        "bedrock-wire-json-prefix-unchecked",
        "models/bedrock.py",
        "        kept = converted[: common_prefix(last, messages)]",
        "        kept = converted[: len(last)]",
        ("tests/providers/test_provider_incremental.py::test_each_round_is_the_body_a_fresh_model_builds",),
        "the captured Bedrock body is this round's messages",
    ),
    M(
        "bedrock-messages-separator",
        "models/_bedrock_body.py",
        '        params["body"] = join_list(head, messages, b", ", tail)',
        '        params["body"] = join_list(head, messages, b",", tail)',
        ("tests/providers/test_provider_incremental.py::test_each_round_is_the_body_a_fresh_model_builds",),
        "Bedrock's body is byte for byte what botocore would serialize",
    ),
    M(
        "context-count-from-the-oldest-reply",
        "engine/_context.py",
        "for index in reversed(range(counted_from, len(messages))):",
        "for index in range(counted_from, len(messages)):",
        (
            "tests/providers/test_provider_context.py::test_the_estimate_starts_from_the_newest_reply_the_provider_counted",
        ),
        "the estimate starts from the newest reply the provider counted",
    ),
    M(
        "context-count-ignores-a-cached-prompt",
        "engine/_context.py",
        "message.usage.input + message.usage.cache_read > 0",
        "message.usage.input > 0",
        (
            "tests/providers/test_provider_context.py::test_the_estimate_starts_from_the_newest_reply_the_provider_counted",
        ),
        "a reply whose prompt was read whole from the cache was counted too",
    ),
    M(
        "openai-fallback-body-changed",
        "models/openai_chat.py",
        "cast_to=object, body=payload, stream=True",
        'cast_to=object, body={**payload, "stream_options": None}, stream=True',
        (
            "tests/providers/test_provider_history_walk.py::"
            "test_an_sdk_whose_post_takes_no_content_sends_the_same_bodies_and_reads_the_same_replies",
        ),
        "an SDK whose post takes no content= sends the same body",
    ),
    M(
        "anthropic-fallback-body-changed",
        "models/anthropic.py",
        "body=payload, options=options",
        'body={**payload, "max_tokens": 5}, options=options',
        (
            "tests/providers/test_provider_history_walk.py::"
            "test_an_sdk_whose_post_takes_no_content_sends_the_same_bodies_and_reads_the_same_replies",
        ),
        "an SDK whose post takes no content= sends the same body",
    ),
    M(
        "openai-chunk-shape-trusted",
        "models/_json_data.py",
        "    return value if isinstance(value, dict) else {}",
        "    return value",
        (
            "tests/providers/test_provider_translation.py::test_an_openai_compatible_server_s_null_and_stray_fields_are_read_as_absent",
        ),
        "a null where OpenAI sends an object is read as absent, not a crash",
    ),
    M(
        "openai-chunk-list-trusted",
        "models/_json_data.py",
        "    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []",
        "    return value or []",
        (
            "tests/providers/test_provider_translation.py::test_an_openai_compatible_server_s_null_and_stray_fields_are_read_as_absent",
        ),
        "a null or a stray item in a chunk's list is skipped",
    ),
    M(
        "openai-token-count-trusted",
        "models/_json_data.py",
        "    return value if isinstance(value, int) and not isinstance(value, bool) else 0",
        "    return value or 0",
        (
            "tests/providers/test_provider_translation.py::test_an_openai_compatible_server_s_null_and_stray_fields_are_read_as_absent",
        ),
        "a token count that is not a whole number counts as 0",
    ),
    M(
        "responses-event-shape-trusted",
        "models/openai_responses.py",
        "                event = json_object(event)\n",
        "",
        (
            "tests/providers/test_provider_translation.py::test_a_responses_stream_s_null_and_stray_fields_are_read_as_absent",
        ),
        "a Responses event that is not an object is skipped",
    ),
    M(
        "responses-encrypted-reasoning-trusted",
        "models/openai_responses.py",
        "                    if encrypted and isinstance(encrypted, str):",
        "                    if encrypted:",
        (
            "tests/providers/test_provider_translation.py::test_a_responses_stream_s_null_and_stray_fields_are_read_as_absent",
        ),
        "only encrypted reasoning that is text is kept to send back",
    ),
    M(
        "responses-failure-without-response",
        "models/openai_responses.py",
        '                    error = json_object(json_object(event.get("response")).get("error"))',
        '                    error = event["response"]["error"]',
        (
            "tests/providers/test_provider_translation.py::"
            "test_a_responses_failure_event_with_missing_fields_still_ends_the_round_as_an_error",
        ),
        "a response.failed with no response still ends the round as an error that says so",
    ),
    M(
        "gemini-text-chunk-read-as-error",
        "models/gemini.py",
        "                chunk = json_object(data)  # anything else is read as an empty chunk",
        "                chunk = data",
        (
            "tests/providers/test_provider_translation.py::test_a_gemini_stream_s_null_and_stray_fields_are_read_as_absent",
        ),
        "a chunk that is a text mentioning an error is not an error chunk (no substring test)",
    ),
    M(
        "gemini-null-candidate-trusted",
        "models/gemini.py",
        '                for candidate in json_objects(chunk.get("candidates"))[:1]:',
        '                for candidate in (chunk.get("candidates") or [])[:1]:',
        (
            "tests/providers/test_provider_translation.py::test_a_gemini_stream_s_null_and_stray_fields_are_read_as_absent",
        ),
        "a null candidate from a proxy is skipped",
    ),
    M(
        "gemini-non-text-part-trusted",
        "models/gemini.py",
        "    if not isinstance(text, str):",
        "    if text is None:",
        (
            "tests/providers/test_provider_translation.py::test_a_gemini_stream_s_null_and_stray_fields_are_read_as_absent",
        ),
        "a part whose text is not a string adds nothing",
    ),
    M(
        "history-memo-half-extended-kept",
        "models/_incremental.py",
        "            self._sources, self._wire = [], []\n            raise",
        "            raise",
        ("tests/providers/test_provider_incremental.py::test_a_round_whose_step_fails_leaves_the_memo_as_a_fresh_one",),
        "a round that fails to build leaves no half-built messages for the next round",
    ),
    M(
        "history-memo-unlocked",
        "models/_incremental.py",
        "        with self._lock:\n            wire = self._extend(messages, closed, step)",
        "        if True:\n            wire = self._extend(messages, closed, step)",
        (
            "tests/providers/test_provider_incremental.py::test_two_runs_on_one_model_at_once_each_get_their_own_history",
        ),
        "two runs on one model at once never send each other's messages",
    ),
    M(
        "history-memo-own-list-handed-out",
        "models/_incremental.py",
        "        return list(self._wire)",
        "        return self._wire",
        ("tests/providers/test_provider_incremental.py::test_each_round_is_the_body_a_fresh_model_builds",),
        "the newest messages added to a round's body never enter the memo's closed history",
    ),
    M(
        "encoded-items-own-list-handed-out",
        "models/_incremental.py",
        "            return list(self._encode_items(items, encode))",
        "            return self._encode_items(items, encode)",
        (
            "tests/providers/test_provider_incremental.py::"
            "test_the_encoded_items_handed_out_are_not_changed_by_the_next_round",
        ),
        "a Bedrock body handed out is not changed by the next round's encoding",
    ),
    M(
        "wire-digests-tail-kept",
        "models/_wire.py",
        "        del last_messages[reused:], digests[reused:]",
        "        pass",
        ("tests/providers/test_provider_wire.py::test_captured_request_is_the_body_the_server_received",),
        "a captured request holds this round's messages, not the last round's newest ones",
    ),
    M(
        "wire-digests-shared-overcounted",
        "models/_wire.py",
        "        shared = reused + common_prefix(digests[reused:], new)  # equal digests are one object (_blob)",
        "        shared = reused + len(new)",
        ("tests/providers/test_provider_wire.py::test_captured_request_is_the_body_the_server_received",),
        "a captured request is rebuilt from its own messages, not the round before's",
    ),
    M(
        "restart-start-cell-refused",
        "jupyter/_magics.py",
        "    if saved and not started_here:",
        "    if saved:",
        (
            "tests/notebook/test_session_after_restart.py::test_running_the_cell_that_started_the_session_starts_it_again",
        ),
        "after a restart, running the cell that started a session starts it again (Run All works)",
    ),
    M(
        "restart-continuing-cell-allowed",
        "jupyter/_magics.py",
        "run.cell_id == cell_id and (run.history_length == 0 or run.cell == first_cell)",
        "run.cell_id == cell_id",
        ("tests/notebook/test_session_after_restart.py::test_a_cell_that_continued_the_session_is_refused",),
        "after a restart, a cell that continued a session is refused, not run on a forgotten history",
    ),
    M(
        "restart-any-cell-allowed",
        "jupyter/_magics.py",
        "run.cell_id == cell_id and (run.history_length == 0 or run.cell == first_cell)",
        "(run.history_length == 0 or run.cell == first_cell)",
        ("tests/notebook/test_session_after_restart.py::test_a_cell_that_is_not_the_sessions_start_is_refused",),
        "after a restart, only the session's own first cell starts it again",
    ),
    M(
        "restart-no-ids-match",
        "jupyter/_magics.py",
        "started_here = cell_id is not None and any(",
        "started_here = any(",
        (
            "tests/notebook/test_session_after_restart.py::test_without_cell_ids_in_the_notebook_the_start_cell_is_not_known_and_is_refused",
        ),
        "a frontend that sends no cell id, on a notebook without ids, is refused",
    ),
    M(
        "saved-run-cell-id-dropped",
        "jupyter/_saved_runs.py",
        "runs.append(_saved_run(saved, index, cell_id if isinstance(cell_id, str) else None))",
        "runs.append(_saved_run(saved, index, None))",
        (
            "tests/notebook/test_session_after_restart.py::test_running_the_cell_that_started_the_session_starts_it_again",
        ),
        "a saved run knows its cell's notebook id",
    ),
    M(
        "running-cell-id-unchecked",
        "jupyter/_saved_runs.py",
        "    return cell_id if isinstance(cell_id, str) and cell_id else None",
        "    return cell_id if cell_id else None",
        (
            "tests/notebook/test_session_after_restart.py::test_the_running_cells_id_is_read_from_the_request_or_is_none",
        ),
        "a cell id that is not a string is no cell id",
    ),
    M(
        "refused-key-hint-for-every-error",
        "models/_provider_common.py",
        '        if error.kind == "auth":',
        "        if True:",
        ("tests/providers/test_provider_errors.py::test_a_request_refused_for_another_reason_names_no_key",),
        "only refused credentials say which key to check",
    ),
    M(
        "refused-key-given-key-ignored",
        "models/_provider_common.py",
        "if value and self.__api_key in (None, value):",
        "if value and self.__api_key is None:",
        ("tests/providers/test_provider_errors.py::test_a_refused_key_says_which_key_to_check",),
        "a refused key read from a variable names that variable, even when the model holds it as its key",
    ),
    M(
        "refused-key-origin-dropped",
        "models/_provider_common.py",
        'return f"; check the key in {name} ({origin_of(name)})"',
        'return f"; check the key in {name}"',
        ("tests/providers/test_provider_errors.py::test_a_refused_key_says_which_key_to_check",),
        "a refused key's hint says where its value came from (.env, Colab, %agent key)",
    ),
    M(
        "refused-key-names-absent-api-key",
        "models/_provider_common.py",
        'return "; check the api_key= given to the model" if self.__api_key else ""',
        'return "; check the api_key= given to the model"',
        ("tests/providers/test_provider_errors.py::test_with_no_key_anywhere_a_refusal_names_none",),
        "with no key anywhere, a refusal names no api_key= that was never given",
    ),
    # -- a provider's client in a browser (Pyodide, JupyterLite) ----------------------------
    M(
        "browser-anthropic-header-missing",
        "models/_in_browser.py",
        'return {ANTHROPIC_BROWSER_HEADER: "true"} if in_browser() else {}',
        "return {}",
        ("tests/providers/test_in_browser.py::test_in_a_browser_anthropic_requests_say_direct_browser_access",),
        "Anthropic's API answers a page only when the request says direct browser access",
    ),
    M(
        "browser-stop-leaves-the-request-running",
        "models/_fetch_transport.py",
        "controller.abort()",
        "controller = None",
        ("tests/providers/test_in_browser.py::test_closing_a_body_read_halfway_aborts_the_browsers_request",),
        "a run stopped mid-answer in the browser ends its request (the server stops sending)",
    ),
    M(
        "browser-fetch-chunks-not-bytes",
        "models/_fetch_transport.py",
        "yield bytes(chunk)",
        "yield chunk",
        (
            "tests/providers/test_in_browser.py::"
            "test_the_browser_transport_hands_the_sdk_bytes_where_fetch_gave_memoryviews",
        ),
        "the Anthropic SDK splits its stream's chunks as bytes; fetch hands memoryviews",
    ),
)


def _copy_repo(into: Path) -> Path:
    root = into / "repo"
    root.mkdir()
    for name in COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
        elif source.exists():
            shutil.copy2(source, root / name)
    return root


def _check(mutation: Mutation, root: Path) -> str | None:
    """Why ``mutation`` cannot be applied to the copy at ``root``, or ``None``."""
    path = root / PACKAGE / mutation.file
    if not path.exists():
        return f"file not found: {PACKAGE}/{mutation.file}"
    count = path.read_text().count(mutation.original)
    if count == 0:
        return "snippet not found"
    if count > 1:
        return f"snippet found {count} times (must be exactly once)"
    return None


def _imports_the_copy(root: Path) -> bool:
    """Whether a Python started as the tests are imports the package from the copy (an
    installed copy first on the path would make every mutation survive)."""
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", f"import {PACKAGE}; print({PACKAGE}.__file__)"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode == 0 and Path(done.stdout.strip()).is_relative_to(root)


def _run_tests(mutation: Mutation, root: Path, timeout: float) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        *mutation.tests,
    ]
    try:
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "timed out"
    return done.returncode, done.stdout + done.stderr


def _apply_and_test(mutation: Mutation, root: Path, timeout: float) -> tuple[str, str]:
    problem = _check(mutation, root)
    if problem is not None:
        return "NOT APPLIED", problem
    path = root / PACKAGE / mutation.file
    original = path.read_text()
    try:
        path.write_text(original.replace(mutation.original, mutation.replacement, 1))
        code, output = _run_tests(mutation, root, timeout)
    finally:
        path.write_text(original)
    if code == 1:
        failed = [line for line in output.splitlines() if line.startswith(("FAILED", "ERROR"))]
        return "killed", failed[0] if failed else "a test failed"
    if code == 0:
        return "SURVIVED", "every listed test passed"
    tail = output.strip().splitlines()[-1:] or ["(no output)"]
    return "NOT RUN", f"pytest exit {code}: {tail[0]}"  # collection errors, timeouts: not a kill


def per_module_table() -> str:
    """How many mutations each module has, most first (then by name), as a Markdown table."""
    counts: dict[str, int] = {}
    for m in MUTATIONS:
        counts[m.file] = counts.get(m.file, 0) + 1
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "\n".join(
        [
            "| module (`openprogram_jupyter/…`) | mutations |",
            "|---|---|",
            *(f"| `{name}` | {count} |" for name, count in rows),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutations to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds for one mutation's tests")
    parser.add_argument(
        "--per-module",
        action="store_true",
        help="print how many mutations each module has, as docs/testing.md's table, and exit",
    )
    args = parser.parse_args(argv)
    if args.per_module:
        print(per_module_table())
        return 0
    by_name = {m.name: m for m in MUTATIONS}
    unknown = [n for n in args.names if n not in by_name]
    if unknown:
        parser.error(f"unknown mutation(s): {', '.join(unknown)}; see --list")
    chosen = [by_name[n] for n in args.names] or list(MUTATIONS)
    if args.list:
        for m in chosen:
            print(
                f"{m.name}\n    {PACKAGE}/{m.file}: {m.original.strip()!r} -> {m.replacement.strip()!r}\n"
                f"    why: {m.why}\n    killed by: {' '.join(m.tests)}"
            )
        return 0
    failures = 0
    with tempfile.TemporaryDirectory(prefix="mutate-") as tmp:
        root = _copy_repo(Path(tmp))
        if not _imports_the_copy(root):
            print(f"the tests would not import {PACKAGE} from the copy at {root}: nothing mutated")
            return 2
        for m in chosen:
            started = time.monotonic()
            verdict, detail = _apply_and_test(m, root, args.timeout)
            failures += verdict != "killed"
            print(f"{verdict:11} {m.name:34} {time.monotonic() - started:6.1f} s  {detail}", flush=True)
    print(f"\n{len(chosen) - failures} of {len(chosen)} mutations killed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
