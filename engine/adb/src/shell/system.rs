//! System commands: exit, sleep, date, id, whoami, getprop/setprop, settings, ime.

use std::collections::BTreeMap;

use phoneworld_data::{Action, CivilTime};
use serde_json::Value;

use super::Ctx;
use crate::session::{MAX_EXTRA_PROPS, MAX_EXTRA_SETTINGS, MAX_PROP_NAME_BYTES, MAX_PROP_VALUE_BYTES, MAX_SETTING_BYTES};

pub(crate) fn exit(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    ctx.shell.exited = true;
    match args.first() {
        None => ctx.shell.status,
        Some(n) => n.parse::<i64>().map(|v| v.rem_euclid(256) as u8).unwrap_or(2),
    }
}

/// `sleep SECONDS` waits in the phone's virtual time: a `wait` action of that length.
pub(crate) fn sleep(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let Some(arg) = args.first() else {
        return ctx.fail(1, "sleep: Needs 1 argument");
    };
    let (number, unit) = match arg.char_indices().last() {
        Some((i, c @ ('s' | 'm' | 'h' | 'd'))) => (&arg[..i], c),
        _ => (arg.as_str(), 's'),
    };
    let scale = match unit {
        'm' => 60_000.0,
        'h' => 3_600_000.0,
        'd' => 86_400_000.0,
        _ => 1000.0,
    };
    match number.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs >= 0.0 => {
            // Saturates: anything past the request's virtual time is refused by `act`.
            let ms = (secs * scale).round() as u64;
            if ms > 0 {
                if let Err(status) = ctx.act(&Action::Wait { ms }) {
                    return status;
                }
            }
            0
        }
        _ => ctx.fail(1, &format!("sleep: invalid number '{arg}'")),
    }
}

/// `date [+FORMAT]` on the phone's virtual clock (UTC); `%s` gives epoch seconds.
pub(crate) fn date(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let ms = ctx.session.device().store().session.clock_ms;
    let civil = CivilTime::from_ms(ms);
    let text = match args.iter().find(|a| a.starts_with('+')) {
        Some(fmt) => civil.format(
            &fmt[1..].replace("%s", &(ms / 1000).to_string()).replace("%Z", "UTC").replace("%T", "%H:%M:%S").replace("%F", "%Y-%m-%d"),
        ),
        None => civil.format("%a %b %e %H:%M:%S UTC %Y"),
    };
    ctx.print(&format!("{text}\n"));
    0
}

pub(crate) fn id(ctx: &mut Ctx<'_>, _args: &[String]) -> u8 {
    ctx.print("uid=0(root) gid=0(root) groups=0(root),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats) context=u:r:su:s0\n");
    0
}

/// Answering `root` spares clients an `adb root` round trip.
pub(crate) fn whoami(ctx: &mut Ctx<'_>, _args: &[String]) -> u8 {
    ctx.print("root\n");
    0
}

/// The properties a Pixel-like emulator image reports.
pub(crate) fn builtin_props(ctx: &Ctx<'_>) -> BTreeMap<String, String> {
    let config = ctx.session.device().config();
    let mut props: BTreeMap<String, String> = [
        ("dev.bootcomplete", "1"),
        ("init.svc.bootanim", "stopped"),
        ("persist.sys.locale", "en-US"),
        ("persist.sys.timezone", "UTC"),
        ("ro.build.characteristics", "phone"),
        ("ro.build.fingerprint", "phoneworld/phoneworld/phoneworld:14/PW1.0/1:userdebug/test-keys"),
        ("ro.build.id", "PW1.0"),
        ("ro.build.tags", "test-keys"),
        ("ro.build.type", "userdebug"),
        ("ro.build.version.release", "14"),
        ("ro.build.version.sdk", "34"),
        ("ro.debuggable", "1"),
        ("ro.hardware", "phoneworld"),
        ("ro.product.brand", "PhoneWorld"),
        ("ro.product.cpu.abi", "x86_64"),
        ("ro.product.device", "phoneworld"),
        ("ro.product.locale", "en-US"),
        ("ro.product.manufacturer", "PhoneWorld"),
        ("ro.product.model", "PhoneWorld"),
        ("ro.product.name", "phoneworld"),
        ("ro.secure", "0"),
        ("ro.serialno", "phoneworld"),
        ("service.adb.root", "1"),
        ("sys.boot_completed", "1"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    props.insert("ro.sf.lcd_density".into(), config.density.to_string());
    props.extend(ctx.session.props().iter().map(|(k, v)| (k.clone(), v.clone())));
    props
}

pub(crate) fn getprop(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let props = builtin_props(ctx);
    match args.first() {
        None => {
            for (k, v) in &props {
                ctx.print(&format!("[{k}]: [{v}]\n"));
            }
        }
        Some(key) => {
            let value = props.get(key).cloned().or_else(|| args.get(1).cloned()).unwrap_or_default();
            ctx.print(&format!("{value}\n"));
        }
    }
    0
}

pub(crate) fn setprop(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let [key, value] = args else {
        return ctx.fail(1, "setprop: Need 2 arguments");
    };
    if key.starts_with("ro.") && builtin_props(ctx).contains_key(key) {
        return ctx.fail(1, &format!("Failed to set property '{key}' to '{value}'."));
    }
    let known = ctx.session.props().contains_key(key);
    let problem = if key.is_empty() || key.len() > MAX_PROP_NAME_BYTES {
        Some(format!("the name must be 1 to {MAX_PROP_NAME_BYTES} bytes"))
    } else if value.len() > MAX_PROP_VALUE_BYTES {
        Some(format!("the value is {} bytes, at most {MAX_PROP_VALUE_BYTES}", value.len()))
    } else if !known && ctx.session.props().len() >= MAX_EXTRA_PROPS {
        Some(format!("at most {MAX_EXTRA_PROPS} properties can be set on this device"))
    } else {
        None
    };
    if let Some(problem) = problem {
        let shown: String = value.chars().take(32).collect();
        return ctx.fail(1, &format!("Failed to set property '{}' to '{shown}': {problem}.", key.chars().take(64).collect::<String>()));
    }
    ctx.session.props_mut().insert(key.clone(), value.clone());
    0
}

/// How an Android setting maps onto the store's `system.*` keys.
enum Mapped {
    /// A boolean stored as `0`/`1`.
    Flag(&'static str),
    /// `ui_night_mode`: 2 is dark, 1 is light.
    NightMode,
    /// 0–255 on Android, 0–100 in the store.
    Brightness,
    Number(&'static str),
    Text(&'static str),
}

fn mapped(namespace: &str, key: &str) -> Option<Mapped> {
    Some(match (namespace, key) {
        ("global", "airplane_mode_on") => Mapped::Flag("airplane_mode"),
        ("global", "wifi_on") => Mapped::Flag("wifi"),
        ("global", "bluetooth_on") => Mapped::Flag("bluetooth"),
        ("secure", "ui_night_mode") => Mapped::NightMode,
        ("system", "screen_brightness") => Mapped::Brightness,
        ("system", "font_scale") => Mapped::Number("font_scale"),
        ("global", "device_name") => Mapped::Text("device_name"),
        _ => return None,
    })
}

/// Settings every Android phone has, that the store does not model.
fn default_setting(namespace: &str, key: &str) -> Option<&'static str> {
    Some(match (namespace, key) {
        ("secure", "default_input_method") => "com.android.adbkeyboard/.AdbIME",
        ("secure", "enabled_input_methods") => {
            "com.android.adbkeyboard/.AdbIME:com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"
        }
        ("secure", "android_id") => "70686f6e65776f72",
        ("global", "adb_enabled") => "1",
        ("global", "development_settings_enabled") => "1",
        ("global", "stay_on_while_plugged_in") => "7",
        ("global", "window_animation_scale") | ("global", "transition_animation_scale") | ("global", "animator_duration_scale") => "1.0",
        ("system", "accelerometer_rotation") => "0",
        ("system", "user_rotation") => "0",
        ("system", "screen_off_timeout") => "600000",
        ("system", "time_12_24") => "24",
        _ => return None,
    })
}

fn read_setting(ctx: &Ctx<'_>, namespace: &str, key: &str) -> Option<String> {
    if let Some(m) = mapped(namespace, key) {
        let system = &ctx.session.device().store().system;
        let get = |k: &str| system.get(k).cloned().unwrap_or(Value::Null);
        return Some(match m {
            Mapped::Flag(k) => if phoneworld_data::truthy(&get(k)) { "1" } else { "0" }.to_owned(),
            Mapped::NightMode => if phoneworld_data::truthy(&get("dark_theme")) { "2" } else { "1" }.to_owned(),
            Mapped::Brightness => ((get("brightness").as_f64().unwrap_or(60.0) * 255.0 / 100.0).round() as i64).to_string(),
            Mapped::Number(k) => get(k).as_f64().map(|v| v.to_string()).unwrap_or_else(|| "null".into()),
            Mapped::Text(k) => get(k).as_str().unwrap_or("").to_owned(),
        });
    }
    ctx.session
        .settings()
        .get(&(namespace.to_owned(), key.to_owned()))
        .cloned()
        .or_else(|| default_setting(namespace, key).map(str::to_owned))
}

fn write_setting(ctx: &mut Ctx<'_>, namespace: &str, key: &str, value: &str) -> Result<(), String> {
    if key.len() > MAX_SETTING_BYTES || value.len() > MAX_SETTING_BYTES {
        return Err(format!("settings: keys and values are at most {MAX_SETTING_BYTES} bytes on this device"));
    }
    let Some(m) = mapped(namespace, key) else {
        let entry = (namespace.to_owned(), key.to_owned());
        if !ctx.session.settings().contains_key(&entry) && ctx.session.settings().len() >= MAX_EXTRA_SETTINGS {
            return Err(format!("settings: at most {MAX_EXTRA_SETTINGS} extra settings on this device"));
        }
        ctx.session.settings_mut().insert(entry, value.to_owned());
        return Ok(());
    };
    let number = || value.trim().parse::<f64>().map_err(|_| format!("Invalid value '{value}' for {namespace} {key}"));
    let (store_key, v) = match m {
        Mapped::Flag(k) => (k, Value::Bool(number()? != 0.0)),
        Mapped::NightMode => ("dark_theme", Value::Bool(number()? == 2.0)),
        Mapped::Brightness => ("brightness", Value::from((number()?.clamp(0.0, 255.0) * 100.0 / 255.0).round() as i64)),
        Mapped::Number(k) => (k, Value::from(number()?)),
        Mapped::Text(k) => (k, Value::String(value.to_owned())),
    };
    if let Some(map) = ctx.session.device_mut().store_mut().system.as_object_mut() {
        map.insert(store_key.to_owned(), v);
    }
    Ok(())
}

/// `settings get|put|delete|list NAMESPACE [KEY [VALUE]]`.
pub(crate) fn settings(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    // `--user N` may come before the namespace.
    if let Some(i) = args.iter().position(|a| *a == "--user") {
        args.drain(i..(i + 2).min(args.len()));
    }
    let usage = "usage:  settings [--user <USER_ID> | current] get namespace key\n        settings [--user <USER_ID> | current] put namespace key value\n        settings [--user <USER_ID> | current] delete namespace key\n        settings [--user <USER_ID> | current] list namespace";
    let Some((&verb, rest)) = args.split_first() else {
        return ctx.fail(1, usage);
    };
    let namespace = match rest.first().copied() {
        Some(ns @ ("system" | "secure" | "global")) => ns,
        Some(other) => return ctx.fail(1, &format!("Invalid namespace '{other}'\n{usage}")),
        None => return ctx.fail(1, usage),
    };
    match (verb, &rest[1..]) {
        ("get", [key]) => {
            let value = read_setting(ctx, namespace, key).unwrap_or_else(|| "null".into());
            ctx.print(&format!("{value}\n"));
            0
        }
        ("put", [key, value, ..]) => match write_setting(ctx, namespace, key, value) {
            Ok(()) => 0,
            Err(e) => ctx.fail(1, &e),
        },
        ("delete", [key]) => {
            let removed = ctx.session.settings_mut().remove(&(namespace.to_owned(), (*key).to_owned())).is_some();
            ctx.print(&format!("Deleted {} rows\n", u8::from(removed)));
            0
        }
        ("list", []) => {
            let mut keys: Vec<String> = ctx.session.settings().keys().filter(|(ns, _)| ns == namespace).map(|(_, k)| k.clone()).collect();
            for (ns, key) in [
                ("global", "airplane_mode_on"),
                ("global", "wifi_on"),
                ("global", "bluetooth_on"),
                ("secure", "ui_night_mode"),
                ("system", "screen_brightness"),
                ("system", "font_scale"),
                ("global", "device_name"),
            ] {
                if ns == namespace {
                    keys.push(key.to_owned());
                }
            }
            keys.sort();
            keys.dedup();
            for key in keys {
                let value = read_setting(ctx, namespace, &key).unwrap_or_else(|| "null".into());
                ctx.print(&format!("{key}={value}\n"));
            }
            0
        }
        _ => ctx.fail(1, usage),
    }
}

const IMES: [&str; 2] = ["com.android.adbkeyboard/.AdbIME", "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"];

/// `ime list -s`, `ime enable ID`, `ime set ID`: the keyboards ADB-driven agents switch between.
pub(crate) fn ime(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["list", ..] => {
            for id in IMES {
                ctx.print(&format!("{id}\n"));
            }
            0
        }
        [verb @ ("enable" | "disable" | "set"), id] => {
            if !IMES.contains(id) {
                return ctx.fail(1, &format!("Unknown input method {id} cannot be {verb}d for user #0"));
            }
            match *verb {
                "set" => {
                    ctx.session.settings_mut().insert(("secure".into(), "default_input_method".into()), (*id).to_owned());
                    ctx.print(&format!("Input method {id} selected for user #0\n"));
                }
                "enable" => ctx.print(&format!("Input method {id}: already enabled for user #0\n")),
                _ => ctx.print(&format!("Input method {id}: now disabled for user #0\n")),
            }
            0
        }
        ["reset"] => {
            ctx.session.settings_mut().remove(&("secure".into(), "default_input_method".into()));
            ctx.print(&format!("Reset current and enabled IMEs for user #0\n  Selected: {}\n", IMES[0]));
            0
        }
        _ => ctx.fail(1, "usage: ime list [-a] [-s] | ime enable ID | ime disable ID | ime set ID | ime reset"),
    }
}
