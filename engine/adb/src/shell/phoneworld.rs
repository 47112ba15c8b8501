//! `phoneworld ...`: what an ADB-driven agent and its evaluator need to finish an episode on the
//! mock phone: the task's instruction, the agent's answer and finish, the verifier's verdict
//! and the state hash.

use phoneworld_data::{Action, FinishStatus};
use serde_json::json;

use super::Ctx;

const USAGE: &str = "usage: phoneworld COMMAND
  task [--json]                   the task's instruction
  answer TEXT...                  record the agent's answer
  finish success|infeasible [TEXT...]
                                  end the episode
  verdict                         the verifier's result as JSON
  state-hash                      blake3 of the phone's state
  frame-hash                      blake3 of the screen
  action JSON                     apply one canonical action; prints the step result";

pub(crate) fn phoneworld(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let Some((verb, rest)) = args.split_first() else {
        return ctx.fail(1, USAGE);
    };
    // Judging and hashing read the whole phone: they count as captures.
    if matches!(verb.as_str(), "verdict" | "state-hash") {
        if let Err(status) = ctx.capture() {
            return status;
        }
    }
    match verb.as_str() {
        "task" => {
            let Some(task) = ctx.session.task() else {
                return ctx.fail(1, "phoneworld: no task on this phone (start it with `serve-adb --task ID`)");
            };
            let text = if rest.iter().any(|a| a == "--json") {
                let t = &task.instance.template;
                json!({
                    "id": t.id, "seed": task.instance.seed, "instruction": task.instance.instruction,
                    "category": t.category.name(), "apps": t.apps, "max_steps": t.max_steps,
                })
                .to_string()
            } else {
                task.instance.instruction.clone()
            };
            ctx.print(&format!("{text}\n"));
            0
        }
        "answer" => {
            if rest.is_empty() {
                return ctx.fail(1, "phoneworld answer: give the answer text");
            }
            match ctx.act(&Action::Answer { text: rest.join(" ") }) {
                Ok(_) => 0,
                Err(status) => status,
            }
        }
        "finish" => {
            let status = match rest.first().map(String::as_str) {
                Some("success") => FinishStatus::Success,
                Some("infeasible") => FinishStatus::Infeasible,
                _ => return ctx.fail(1, "phoneworld finish: say `success` or `infeasible`"),
            };
            match ctx.act(&Action::Finish { status, text: rest[1..].join(" ") }) {
                Ok(_) => 0,
                Err(status) => status,
            }
        }
        "verdict" => match ctx.session.verdict_json() {
            Some(v) => {
                ctx.print(&format!("{v}\n"));
                0
            }
            None => ctx.fail(1, "phoneworld: no task on this phone, so there is nothing to verify"),
        },
        "state-hash" => {
            let hash = ctx.session.device().state_hash();
            ctx.print(&format!("{hash}\n"));
            0
        }
        "frame-hash" => {
            if let Err(status) = ctx.capture() {
                return status;
            }
            let hash = ctx.session.device_mut().frame_hash();
            ctx.print(&format!("{hash}\n"));
            0
        }
        "action" => {
            let text = rest.join(" ");
            match Action::from_json(&text) {
                Ok(action) => match ctx.act(&action) {
                    Ok(result) => {
                        ctx.print(&format!("{}\n", serde_json::to_string(&result).unwrap_or_default()));
                        u8::from(!result.ok)
                    }
                    Err(status) => status,
                },
                Err(e) => ctx.fail(1, &format!("phoneworld action: {e}")),
            }
        }
        "help" | "--help" | "-h" => {
            ctx.print(&format!("{USAGE}\n"));
            0
        }
        other => ctx.fail(1, &format!("phoneworld: unknown command `{other}`\n{USAGE}")),
    }
}
