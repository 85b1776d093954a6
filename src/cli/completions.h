// Shell completions for bash, zsh and fish, from command_docs(): the commands, every flag,
// and the words a flag's value may take from the lists its parser checks (strategies,
// formats, tracers, colour and sort orders, sync policies).
#pragma once

#include <string>
#include <vector>

#include "cli/command_docs.h"

namespace iobench {

/// A file to source (or to put in bash-completion's completions/ directory): `complete -F`
/// with bash's own compgen, no bash-completion helpers needed.
std::string bash_completion(const std::vector<CommandDoc>& commands);
/// `_iobench` for a directory of $fpath (site-functions/).
std::string zsh_completion(const std::vector<CommandDoc>& commands);
/// iobench.fish for fish's vendor_completions.d/.
std::string fish_completion(const std::vector<CommandDoc>& commands);

}  // namespace iobench
