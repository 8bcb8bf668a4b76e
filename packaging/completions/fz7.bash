# fz7.bash - bash completion for fz7: the command, 7-Zip style switches
# (with folder names after -o/-w and file names after --password-file=), archive names
# (*.7z, *.xz, *.txz, *.lzma and folders) for the archive argument, any file
# after it. Needs nothing from the bash-completion package.

_fz7_switches()
{
    local cmd=$1
    local common="-- -bb0 -bb1 -bb2 -bb3 -bt -bsp0 -bsp1 -bsp2 -bse0 -bse1 -bse2 -bso0 -bso1 -bso2
        -i! -i@ -ir! -ir@ -m -mmt -mmemuse= -p --password-file= -r -r- -si -ssc -ssc- -t7z -txz -tlzma -ttar -tzip -tgzip -tbzip2
        -x! -x@ -xr! -xr@ -y"
    case $cmd in
    a) echo "$common -mx0 -mx1 -mx3 -mx5 -mx7 -mx9 -m0= -m0=LZMA2 -m0=LZMA -m0=PPMd -m0=Deflate -m0=Deflate64 -m0=BZip2 -m0=Copy -md= -mo= -mmem= -mfb= -mhc=off -mhe=on -ms=on
             -ms=off -mf=off -mcrc=0 -mcrc=4 -mcrc=8 -mcrc=32 -sdel -sfx -snl -so -spf -spf2 -sse -mtm=off -mtc=on -mta=on -mtr=off -mtp=0 -w
             -u- -uq0 -up0q0r2x2y2z1w2 -uq3 -u! -v10m -v100m -v1g -v4g
             -mpass= -mmc= -ma=0 -ma=1 -mm=Deflate -mm=Copy -mem=ZipCrypto -mem=AES128 -mem=AES256 -mcu=on -mcp=65001" ;;
    u) echo "$common -mx0 -mx1 -mx5 -mx9 -mhe=on -w -u- -uq0 -up0q0r2x2y2z1w2 -uq3 -u!" ;;
    d) echo "$common -w -u- -up0 -up3 -u!" ;;
    rn) echo "$common -w" ;;
    x|e) echo "$common -aoa -aos -aot -aou -o -so -spf" ;;
    l) echo "$common -slt" ;;
    t) echo "$common" ;;
    h) echo "-scrcCRC32 -scrcCRC64 -scrcSHA256 -scrcSHA1 -scrcMD5 -scrcXXH64 -scrcSHA384
             -scrcSHA512 -scrcSHA3-256 -scrc* -ba -r" ;;
    b) echo "-mm=LZMA -mm=CRC32 -mm=CRC64 -mm=SHA256 -mm=AES256CBC -mm=* -md22 -md23 -md24
             -md25 -mmt -mmt1 -mmt2" ;;
    esac
    # The archives of x/e/t/l and their entries' wildcard modes, the sums
    # of x/e/t, -spe, and the archive-name modes of a/u.
    local arcs="-ai! -ai@ -air! -ax! -ax@ -axr! -an -stx7z -stxxz -stxzip -stxtar
        -im! -iw-! -xm! -xw-!"
    local sums="-scrc -scrcCRC32 -scrcCRC64 -scrcSHA256 -scrcSHA1 -scrcMD5 -scrcXXH64
        -scrcSHA384 -scrcSHA512 -scrcSHA3-256 -scrc*"
    case $cmd in
    x) echo "$arcs $sums -spe" ;;
    e|t) echo "$arcs $sums" ;;
    l) echo "$arcs" ;;
    a|u) echo "-saa -sae -sas" ;;
    esac
}

# Files whose names end like an archive, and folders (to walk into).
_fz7_archives()
{
    local cur=$1 f
    while IFS= read -r f; do
        [ -n "$f" ] || continue
        if [ -d "$f" ]; then
            COMPREPLY+=("$f/")
        else
            case ${f,,} in
            *.7z|*.xz|*.txz|*.lzma|*.tlz|*.7z.001|*.tar|*.zip|*.gz|*.tgz|*.bz2|*.tbz2|*.lz) COMPREPLY+=("$f") ;;
            esac
        fi
    done < <(compgen -f -- "$cur")
}

_fz7()
{
    local cur=${COMP_WORDS[COMP_CWORD]}
    COMPREPLY=()
    # The command: the first word after fz7 that is not a switch.
    local i cmd="" cmd_at=0
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        -*) ;;
        *) cmd=${COMP_WORDS[i]}; cmd_at=$i; break ;;
        esac
    done
    if [ -z "$cmd" ]; then
        COMPREPLY=($(compgen -W "a b d e h i l rn t u x --help --version" -- "$cur"))
        return 0
    fi
    cmd=${cmd,,}
    case $cur in
    -o*|-w*)
        local p=${cur:0:2} d
        while IFS= read -r d; do
            [ -n "$d" ] && COMPREPLY+=("$p$d/")
        done < <(compgen -d -- "${cur:2}")
        compopt -o nospace 2>/dev/null
        return 0 ;;
    --password-file=*)
        local f
        while IFS= read -r f; do
            [ -n "$f" ] && COMPREPLY+=("--password-file=$f")
        done < <(compgen -f -- "${cur:16}")
        return 0 ;;
    -*)
        COMPREPLY=($(compgen -W "$(_fz7_switches "$cmd")" -- "$cur"))
        case ${COMPREPLY[0]} in *=|*!|*@|-m|-o|-p|-w|-stx*) compopt -o nospace ;; esac 2>/dev/null
        return 0 ;;
    esac
    # Words that are not switches after the command: the archive, then files.
    local n=0
    for ((i = cmd_at + 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        -*) ;;
        *) n=$((n + 1)) ;;
        esac
    done
    if [ "$cmd" = b ]; then
        return 0 # `fz7 b [passes]`
    fi
    if [ "$n" = 0 ]; then
        _fz7_archives "$cur"
        compopt -o filenames -o nospace 2>/dev/null
    else
        COMPREPLY=($(compgen -f -- "$cur"))
        compopt -o filenames 2>/dev/null
    fi
    return 0
}

complete -F _fz7 fz7
