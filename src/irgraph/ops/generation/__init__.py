"""Ops of OpenVINO's 'generation' spec category."""
