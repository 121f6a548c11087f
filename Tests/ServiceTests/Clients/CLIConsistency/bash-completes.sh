# What bash completes for $LINE (the cursor at its end), with the real completion script of the
# real program $EXE: prints the completions, one a line. Run by bash.
source <("$EXE" --generate-completion-script bash)
read -ra COMP_WORDS <<< "$LINE"
COMP_WORDS[0]="$EXE"
[ "${LINE: -1}" = " " ] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE="$EXE ${LINE#* }"; COMP_POINT=${#COMP_LINE}
_schemebridge "$EXE" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
