// The dashboard's stylesheet, served as /dashboard/style.css: the pages' policy (style-src 'self')
// refuses inline styles, and a module rather than a .css file keeps it in the compiled build.
export const STYLESHEET = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem; color: #1d2330; }
header { display: flex; align-items: center; justify-content: space-between; border-bottom: 1px solid #d5d9e0; margin-bottom: 1rem; }
h1 { font-size: 1.4rem; margin: .6rem 0; }
h2 { font-size: 1.1rem; margin: 1.4rem 0 .5rem; }
form.inline { display: inline; margin: 0; }
label { margin-right: .6rem; }
input, select, button { font: inherit; padding: .25rem .45rem; }
button { cursor: pointer; }
button.danger { color: #8a1c1c; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #e4e7ec; vertical-align: middle; }
th { font-weight: 600; background: #f4f6f9; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.revoked td { color: #7a808c; }
code { font-family: ui-monospace, monospace; }
.notice { border: 1px solid #9cc49c; background: #eef8ee; padding: .7rem 1rem; margin: 1rem 0; }
.notice code { font-size: 1.05rem; user-select: all; word-break: break-all; }
.problem { border: 1px solid #d99; background: #fdf0f0; padding: .7rem 1rem; margin: 1rem 0; }
.chart rect.used { fill: #3b6fd4; }
.chart rect.idle { fill: #c9ced8; }
`;
