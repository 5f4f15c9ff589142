import Foundation

/// The manual page, `routelog.1`, made from the same specs as `--help` (so the two
/// never disagree). `routelog --man` prints it; man/routelog.1 is its copy in the
/// repository, which a test keeps equal.
enum ManPage {
    static func render(commands: [CommandSpec] = Routelog.commands.map(\.spec)) -> String {
        var page = """
        .TH ROUTELOG 1 "" "routelog \(RoutelogVersion.current)" "User Commands"
        .SH NAME
        routelog \\- look inside a RouteLog store, edit it safely, picture a route
        .SH SYNOPSIS
        .B routelog
        .I COMMAND STORE
        .RI [ ARGUMENTS ]
        .RI [ OPTIONS ]
        .br
        .B routelog
        .I COMMAND
        .B \\-\\-help
        .br
        .B routelog
        .RB [ \\-\\-help | \\-\\-version | \\-\\-man ]
        .SH DESCRIPTION
        \(text("""
        routelog looks inside a RouteLog store (a directory of GPS routes written by an app \
        that links the RouteLog library) the way a database shell looks inside a database: \
        its layout, its routes, its weeks, one route's points. It also edits a store safely \
        (commands that change a store refuse while an app holds it), imports and exports \
        GPX, GeoJSON and CSV, and draws routes and totals as SVG pictures.
        """))
        .PP
        \(text("STORE is a store's directory (by convention *.routelog). DATE is ISO 8601: 2026-11-29 (local midnight) or 2026-11-29T07:30:00Z. DURATION is a number and a unit (w, d, h, m, s): 7d, -3h, 90m, 45s, 1d12h. ID is a route id as ls prints it."))
        .SH COMMANDS

        """
        for command in commands {
            page += ".SS \(text(command.name))\n"
            page += ".B \(text(command.synopsis))\n.PP\n\(text(command.summary)).\n"
            if !command.discussion.isEmpty {
                page += ".PP\n" + text(command.discussion.replacingOccurrences(of: "\n", with: " ")) + "\n"
            }
            for option in command.options {
                let long = "\\-\\-" + text(option.name)
                let flag = option.short.map { "\\-\($0), " } ?? ""
                let value = option.valueName.map { " \\fI" + text($0) + "\\fR" } ?? ""
                page += ".TP\n\\fB\(flag)\(long)\\fR\(value)\n\(text(option.help))\n"
            }
        }
        page += """
        .SH EXIT STATUS
        .TP
        .B 0
        done
        .TP
        .B 1
        the command failed (no such store or file, unknown id, damaged route, disk error), or verify found damage
        .TP
        .B 2
        usage error: the command line is wrong; nothing was opened
        .TP
        .B 3
        another process holds the store for writing; nothing was changed
        .SH DIAGNOSTICS
        \(text("An error is one line on standard error: routelog: what went wrong (path): what to do."))
        .SH ENVIRONMENT
        .TP
        .B TZ
        the time zone of local dates (weeks, ls \\-\\-from and \\-\\-to, the dates shown)
        .SH EXAMPLES
        .nf
        routelog ls walks.routelog \\-\\-sort distance \\-\\-reverse \\-\\-limit 5
        routelog import walks.routelog ride.gpx \\-\\-create
        routelog export walks.routelog out/ \\-\\-privacy\\-zone 45.4642,9.19,300
        routelog render walks.routelog 12 \\-o route.svg
        routelog chart walks.routelog \\-\\-by month \\-o months.svg
        .fi
        .SH SEE ALSO
        \(text("The README of RouteLog, and routelog COMMAND --help."))

        """
        return page
    }

    /// Text for a roff line: backslashes and dashes escaped, and a line that would start
    /// with a control character (`.` or `'`) guarded.
    static func text(_ raw: String) -> String {
        var out = ""
        for c in raw {
            switch c {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default: out.append(c)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}
